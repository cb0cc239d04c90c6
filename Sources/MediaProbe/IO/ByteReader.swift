/// A bounds-checked cursor over part of a byte array: big-endian by default, little-endian on request.
///
/// Reading past ``end`` throws ``ParseError`` instead of trapping; the array is shared, never copied.
struct ByteReader {
    let bytes: [UInt8]
    /// The first index of the window.
    let start: Int
    /// One past the last index of the window.
    let end: Int
    /// The index of the next byte.
    var position: Int
    var littleEndian: Bool

    init(_ bytes: [UInt8], range: Range<Int>? = nil, littleEndian: Bool = false) {
        let r = range ?? 0..<bytes.count
        precondition(r.lowerBound >= 0 && r.upperBound <= bytes.count, "reader window inside its array")
        self.bytes = bytes
        self.start = r.lowerBound
        self.end = r.upperBound
        self.position = r.lowerBound
        self.littleEndian = littleEndian
    }

    var remaining: Int { end - position }
    var isAtEnd: Bool { position >= end }
    /// The position relative to ``start``.
    var offset: Int { position - start }

    @inline(__always)
    private func need(_ n: Int) throws(ParseError) {
        guard n >= 0, n <= end - position else {
            throw ParseError("needs \(n) bytes at offset \(position - start), only \(end - position) left")
        }
    }

    mutating func skip(_ n: Int) throws(ParseError) {
        try need(n)
        position += n
    }

    mutating func seek(toOffset offset: Int) throws(ParseError) {
        guard offset >= 0, offset <= end - start else { throw ParseError("offset \(offset) outside its block") }
        position = start + offset
    }

    mutating func u8() throws(ParseError) -> UInt8 {
        try need(1)
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() throws(ParseError) -> UInt16 {
        try need(2)
        defer { position += 2 }
        let a = UInt16(bytes[position])
        let b = UInt16(bytes[position + 1])
        return littleEndian ? b << 8 | a : a << 8 | b
    }

    mutating func u24() throws(ParseError) -> UInt32 {
        try need(3)
        defer { position += 3 }
        let a = UInt32(bytes[position])
        let b = UInt32(bytes[position + 1])
        let c = UInt32(bytes[position + 2])
        return littleEndian ? c << 16 | b << 8 | a : a << 16 | b << 8 | c
    }

    mutating func u32() throws(ParseError) -> UInt32 {
        try need(4)
        defer { position += 4 }
        return Self.load32(bytes, position, littleEndian)
    }

    mutating func u64() throws(ParseError) -> UInt64 {
        let a = UInt64(try u32())
        let b = UInt64(try u32())
        return littleEndian ? b << 32 | a : a << 32 | b
    }

    mutating func i16() throws(ParseError) -> Int16 { Int16(bitPattern: try u16()) }
    mutating func i32() throws(ParseError) -> Int32 { Int32(bitPattern: try u32()) }

    /// Reads an unsigned big/little-endian integer of `size` bytes (0, 1, 2, 4 or 8, as in `iloc`).
    mutating func uint(size: Int) throws(ParseError) -> UInt64 {
        switch size {
        case 0: return 0
        case 1: return UInt64(try u8())
        case 2: return UInt64(try u16())
        case 4: return UInt64(try u32())
        case 8: return try u64()
        default: throw ParseError("unsupported field size \(size)")
        }
    }

    mutating func fourCC() throws(ParseError) -> FourCC {
        try need(4)
        defer { position += 4 }
        return FourCC(bytes, at: position)
    }

    /// The next `n` bytes as a slice of the shared array (indices are those of ``bytes``).
    mutating func slice(_ n: Int) throws(ParseError) -> ArraySlice<UInt8> {
        try need(n)
        defer { position += n }
        return bytes[position..<position + n]
    }

    /// A reader over the next `n` bytes; this reader moves past them.
    mutating func subReader(_ n: Int) throws(ParseError) -> ByteReader {
        try need(n)
        defer { position += n }
        return ByteReader(bytes, range: position..<position + n, littleEndian: littleEndian)
    }

    /// A reader over the rest of the window.
    var rest: ByteReader { ByteReader(bytes, range: position..<end, littleEndian: littleEndian) }

    /// A NUL-terminated (or window-terminated) string, decoded as UTF-8 with invalid bytes repaired.
    mutating func cString(maxLength: Int = 4096) -> String {
        let stop = min(end, position + maxLength)
        var i = position
        while i < stop, bytes[i] != 0 { i += 1 }
        let s = String(decoding: bytes[position..<i], as: UTF8.self)
        position = min(end, i + 1)
        return s
    }

    @inline(__always)
    static func load32(_ bytes: [UInt8], _ i: Int, _ littleEndian: Bool) -> UInt32 {
        let a = UInt32(bytes[i])
        let b = UInt32(bytes[i + 1])
        let c = UInt32(bytes[i + 2])
        let d = UInt32(bytes[i + 3])
        return littleEndian ? d << 24 | c << 16 | b << 8 | a : a << 24 | b << 16 | c << 8 | d
    }

    @inline(__always)
    static func load16(_ bytes: [UInt8], _ i: Int, _ littleEndian: Bool) -> UInt16 {
        let a = UInt16(bytes[i])
        let b = UInt16(bytes[i + 1])
        return littleEndian ? b << 8 | a : a << 8 | b
    }
}
