import PhotodropSystem

/// Where a camera RAW file keeps the largest JPEG its camera rendered: what photodrop shows of a RAW (a RAW's sensor
/// data is not decoded). TIFF-based RAWs (DNG, CR2, NEF, ARW, PEF, ORF, RW2 …) keep it in an image directory (IFD0, a
/// sub-IFD, or the `JPEGInterchangeFormat` of one); Fujifilm's RAF points at it from its header; Canon's CR3 keeps it
/// in the `PRVW` box of a top-level `uuid` box.
///
/// Only baseline and progressive JPEGs count (a DNG's or CR2's lossless-JPEG sensor data does not). Reads a few small
/// pieces of the file with `pread`, never more than a few hundred directory entries.
public enum EmbeddedPreviewLocator {
    /// A JPEG inside the file: its byte range, and its pixel size from its frame header.
    public struct Preview: Sendable, Equatable {
        public var offset: Int64
        public var length: Int64
        public var width: Int
        public var height: Int
    }

    /// The largest embedded JPEG of the RAW file open at `descriptor`, or nil when it has none that can be shown.
    public static func largestJPEG(in descriptor: FileDescriptor) -> Preview? {
        guard let size = try? descriptor.status().size else { return nil }
        let reader = Reader(descriptor: descriptor, size: size)
        guard let head = reader.bytes(at: 0, count: 16) else { return nil }
        var candidates: [(Int64, Int64)] = []
        if head.starts(with: Array("FUJIFILMCCD-RAW".utf8)) {
            if let entry = reader.bytes(at: 84, count: 8) {
                candidates.append((Int64(ByteReader.load32(entry, 0, false)), Int64(ByteReader.load32(entry, 4, false))))
            }
        } else if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            candidates += cr3Previews(reader)
        } else if head[0] == head[1], head[0] == 0x49 || head[0] == 0x4D {
            candidates += tiffPreviews(reader, littleEndian: head[0] == 0x49)
        }
        return candidates.compactMap { jpeg(at: $0.0, length: $0.1, in: reader) }
            .max { $0.width * $0.height < $1.width * $1.height }
    }

    /// A JPEG that starts at `offset`, with a baseline, extended or progressive frame header.
    static func jpeg(at offset: Int64, length: Int64, in reader: Reader) -> Preview? {
        guard offset > 0, length > 64, offset + length <= reader.size,
            let soi = reader.bytes(at: offset, count: 2), soi == [0xFF, 0xD8]
        else { return nil }
        var position = offset + 2
        for _ in 0..<64 {
            guard let marker = reader.bytes(at: position, count: 4), marker[0] == 0xFF else { return nil }
            let code = marker[1]
            let segment = Int64(marker[2]) << 8 | Int64(marker[3])
            switch code {
            case 0xC0, 0xC1, 0xC2:
                guard let frame = reader.bytes(at: position + 4, count: 5) else { return nil }
                let height = Int(frame[1]) << 8 | Int(frame[2])
                let width = Int(frame[3]) << 8 | Int(frame[4])
                guard width > 0, height > 0 else { return nil }
                return Preview(offset: offset, length: length, width: width, height: height)
            case 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF, 0xDA, 0xD9:
                return nil  // lossless or arithmetic-coded (sensor data), or no frame header before the scan
            default:
                guard segment >= 2 else { return nil }
                position += 2 + segment
            }
        }
        return nil
    }

    /// JPEGs that TIFF directories point at: the main chain, their sub-IFDs, and `JPEGInterchangeFormat`.
    private static func tiffPreviews(_ reader: Reader, littleEndian: Bool) -> [(Int64, Int64)] {
        func u16(_ bytes: [UInt8], _ at: Int) -> Int {
            littleEndian ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ bytes: [UInt8], _ at: Int) -> Int64 {
            Int64(ByteReader.load32(bytes, at, littleEndian))
        }
        guard let header = reader.bytes(at: 0, count: 8) else { return [] }
        var queue = [u32(header, 4)]
        var visited = Set<Int64>()
        var found: [(Int64, Int64)] = []
        var budget = 32
        while let offset = queue.popLast(), budget > 0 {
            budget -= 1
            guard offset > 0, visited.insert(offset).inserted, let countBytes = reader.bytes(at: offset, count: 2)
            else { continue }
            let count = min(u16(countBytes, 0), 512)
            guard let block = reader.bytes(at: offset + 2, count: count * 12 + 4) else { continue }
            var strips: (offset: Int64?, length: Int64?) = (nil, nil)
            var interchange: (offset: Int64?, length: Int64?) = (nil, nil)
            for index in 0..<count {
                let at = index * 12
                let tag = u16(block, at)
                let type = u16(block, at + 2)
                let valueCount = u32(block, at + 4)
                let value: Int64 = type == 3 ? Int64(u16(block, at + 8)) : u32(block, at + 8)
                switch tag {
                case 0x0111 where valueCount == 1: strips.offset = value
                case 0x0117 where valueCount == 1: strips.length = value
                case 0x0201: interchange.offset = value
                case 0x0202: interchange.length = value
                case 0x014A:
                    // SubIFDs: one offset inline, or a list of them elsewhere.
                    if valueCount == 1 {
                        queue.append(value)
                    } else if valueCount <= 16, let list = reader.bytes(at: value, count: Int(valueCount) * 4) {
                        for item in 0..<Int(valueCount) { queue.append(u32(list, item * 4)) }
                    }
                default: break
                }
            }
            for range in [strips, interchange] {
                if let start = range.offset, let length = range.length { found.append((start, length)) }
            }
            queue.append(u32(block, count * 12))
        }
        return found
    }

    /// The JPEG of a CR3's `PRVW` box (in the top-level `uuid` box eaf42b5e-1c98-4b88-b9fb-b7dc406e4d16).
    private static func cr3Previews(_ reader: Reader) -> [(Int64, Int64)] {
        let previewUUID: [UInt8] = [
            0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16,
        ]
        var offset: Int64 = 0
        for _ in 0..<64 {
            guard let header = reader.bytes(at: offset, count: 32) else { return [] }
            var size = Int64(ByteReader.load32(header, 0, false))
            var headerSize: Int64 = 8
            if size == 1 {
                guard let large = reader.bytes(at: offset + 8, count: 8) else { return [] }
                size = Int64(ByteReader.load32(large, 0, false)) << 32 | Int64(ByteReader.load32(large, 4, false))
                headerSize = 16
            }
            guard size >= headerSize, offset + size <= reader.size else { return [] }
            if Array(header[4..<8]) == Array("uuid".utf8), headerSize == 8, Array(header[8..<24]) == previewUUID,
                let inner = reader.bytes(at: offset + 24, count: Int(min(128, size - 24)))
            {
                // 8 bytes of Canon's own, then the PRVW box; the JPEG starts a few fields into it.
                if let box = inner.indices.dropLast(3).first(where: { Array(inner[$0..<$0 + 4]) == Array("PRVW".utf8) }),
                    let soi = inner[box...].indices.dropLast(2).first(where: {
                        inner[$0] == 0xFF && inner[$0 + 1] == 0xD8 && inner[$0 + 2] == 0xFF
                    })
                {
                    let start = offset + 24 + Int64(soi)
                    return [(start, offset + size - start)]
                }
            }
            offset += size
        }
        return []
    }

    /// Small reads at offsets of a file.
    struct Reader {
        let descriptor: FileDescriptor
        let size: Int64

        func bytes(at offset: Int64, count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, offset + Int64(count) <= size else { return nil }
            var bytes = [UInt8](repeating: 0, count: count)
            let read = bytes.withUnsafeMutableBytes { try? descriptor.readFully(into: $0, at: offset) }
            return read == count ? bytes : nil
        }
    }
}
