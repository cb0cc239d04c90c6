import PhotodropSystem

/// Reads a file front to back in blocks, for walks that must visit most of the file (GIF blocks, JPEG entropy data,
/// PNG chunks): the head is used in place, later blocks are read 256 KiB at a time.
struct SequentialReader {
    static let blockSize = 256 * 1024

    private let source: ByteSource
    private var block: [UInt8]
    private var blockStart: Int64
    private var blockCount: Int
    private var index: Int

    init(_ source: ByteSource, at offset: Int64) {
        self.source = source
        self.block = source.head
        self.blockStart = 0
        self.blockCount = source.headCount
        self.index = 0
        if offset <= Int64(blockCount) {
            index = Int(max(0, offset))
        } else {
            blockStart = offset
            blockCount = 0
            block = []
        }
    }

    /// The absolute offset of the next byte.
    var offset: Int64 { blockStart + Int64(index) }

    /// Loads the block holding ``offset``; false at the end of the file.
    private mutating func refill() throws(ProbeError) -> Bool {
        let at = offset
        guard at < source.size else { return false }
        let count = Int(min(Int64(Self.blockSize), source.size - at))
        guard let bytes = try source.read(at: at, count: count) else { return false }
        block = bytes
        blockStart = at
        blockCount = bytes.count
        index = 0
        return blockCount > 0
    }

    /// The next byte, or `nil` at the end of the file.
    @inline(__always)
    mutating func u8() throws(ProbeError) -> UInt8? {
        if index >= blockCount {
            guard try refill() else { return nil }
        }
        defer { index += 1 }
        return block[index]
    }

    /// A little-endian 16-bit value, or `nil` at the end of the file.
    mutating func u16le() throws(ProbeError) -> UInt16? {
        guard let a = try u8(), let b = try u8() else { return nil }
        return UInt16(b) << 8 | UInt16(a)
    }

    /// A big-endian 16-bit value, or `nil` at the end of the file.
    mutating func u16be() throws(ProbeError) -> UInt16? {
        guard let a = try u8(), let b = try u8() else { return nil }
        return UInt16(a) << 8 | UInt16(b)
    }

    /// Moves `count` bytes forward; false when that passes the end of the file.
    mutating func skip(_ count: Int64) throws(ProbeError) -> Bool {
        let target = offset + count
        guard count >= 0, target <= source.size else { return false }
        if target - blockStart <= Int64(blockCount) {
            index = Int(target - blockStart)
        } else {
            blockStart = target
            blockCount = 0
            index = 0
            block = []
        }
        return true
    }

    /// Moves to the next occurrence of `byte` (which ``u8()`` then returns); false at the end of the file.
    mutating func find(_ byte: UInt8) throws(ProbeError) -> Bool {
        while true {
            if index >= blockCount {
                guard try refill() else { return false }
            }
            let start = index
            let count = blockCount - start
            let found: Int? = block.withUnsafeBytes { raw in
                UnsafeRawBufferPointer(rebasing: raw[start..<start + count]).firstIndex(of: byte).map { start + $0 }
            }
            if let found {
                index = found
                return true
            }
            index = blockCount
        }
    }
}
