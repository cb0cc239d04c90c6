/// The header of one ISO-BMFF / QuickTime box (atom): 32-bit size, 64-bit `largesize` (size 1), "to the end of the
/// enclosing box or file" (size 0), and the 16-byte user type of `uuid` boxes.
struct BoxHeader: Equatable {
    /// The box type.
    var type: FourCC
    /// Where the box starts (absolute in the file, or an index into an in-memory block).
    var offset: Int64
    /// 8, 16 (`largesize`), plus 16 for `uuid`.
    var headerSize: Int
    /// The whole box, header included, after resolving size 0.
    var size: Int64
    /// The user type of a `uuid` box.
    var userType: [UInt8]?

    var payloadOffset: Int64 { offset + Int64(headerSize) }
    var payloadSize: Int64 { size - Int64(headerSize) }
    var end: Int64 { offset + size }

    /// What can go wrong when reading a header.
    enum Problem: Error, Equatable {
        /// The header itself does not fit before `limit`.
        case headerCut
        /// The declared size is smaller than the header.
        case badSize(UInt64)
        /// The box runs past `limit` (the end of its parent or of the file).
        case overrun(BoxHeader)
    }

    /// Parses the header at `offset` from `bytes` (which hold the file or block from `base` on, i.e. `bytes[0]` is at
    /// absolute offset `base`); the box must end at or before `limit` (absolute).
    static func parse<C: RandomAccessCollection>(
        _ bytes: C, at offset: Int64, base: Int64 = 0, limit: Int64
    ) -> Result<BoxHeader, Problem> where C.Element == UInt8, C.Index == Int {
        let available = min(limit, base + Int64(bytes.count)) - offset
        guard offset >= base, available >= 8 else { return .failure(.headerCut) }
        let i = bytes.startIndex + Int(offset - base)
        let size32 = UInt64(ByteReader.load32Generic(bytes, i))
        let type = FourCC(bytes, at: i + 4)
        var headerSize = 8
        var size: UInt64
        if size32 == 1 {
            guard available >= 16 else { return .failure(.headerCut) }
            size =
                UInt64(ByteReader.load32Generic(bytes, i + 8)) << 32 | UInt64(ByteReader.load32Generic(bytes, i + 12))
            headerSize = 16
        } else if size32 == 0 {
            size = UInt64(limit - offset)
        } else {
            size = size32
        }
        var userType: [UInt8]?
        if type == "uuid" {
            guard available >= Int64(headerSize + 16) else { return .failure(.headerCut) }
            let u = i + headerSize
            userType = Array(bytes[u..<u + 16])
            headerSize += 16
        }
        guard size >= UInt64(headerSize) else { return .failure(.badSize(size)) }
        let header = BoxHeader(
            type: type, offset: offset, headerSize: headerSize, size: Int64(min(size, UInt64(Int64.max / 4))),
            userType: userType)
        if size > UInt64(Int64.max / 4) || header.end > limit { return .failure(.overrun(header)) }
        return .success(header)
    }
}

extension ByteReader {
    @inline(__always)
    static func load32Generic<C: RandomAccessCollection>(_ bytes: C, _ i: Int) -> UInt32
    where C.Element == UInt8, C.Index == Int {
        UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
    }
}
