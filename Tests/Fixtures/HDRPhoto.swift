import Foundation

/// A 10-bit HDR HEIC made for tests: a 16-bit PNG of PQ-coded values (a grey ramp up to 1,000 nits over an orange
/// ramp up to 200 nits), encoded by Debian's `heif-enc` (libheif with x265) and labelled BT.2020 + PQ by a `colr` box
/// of type `nclx`. `heif-enc` 1.15 does not write that box although it takes the options, so it is added here: the
/// `meta` box is rebuilt with it and appended to the file, and the old one becomes a `free` box of the same size, so
/// that no item's data moves.
public enum HDRPhoto {
    public static let isAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-enc")

    /// Writes `name.png` (the 16-bit PQ pixels, for a reference decoder) and `name.heic` into `folder`.
    public static func make(_ name: String, width: Int = 256, height: Int = 128, transfer: Int = 16,
                            in folder: TemporaryFolder) throws -> (png: String, heic: String)
    {
        let png = folder.url(name + ".png"), plain = folder.url(name + "-plain.heic"), heic = folder.url(name + ".heic")
        let script = """
            import struct, sys, zlib
            W, H, transfer = \(width), \(height), \(transfer)
            def pq(nits):
                m1, m2 = 2610 / 16384, 2523 / 4096 * 128
                c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
                y = (nits / 10000) ** m1
                return ((c1 + c2 * y) / (1 + c3 * y)) ** m2
            def hlg(nits):
                import math
                e = min(1.0, nits / 1000)
                a, b = 0.17883277, 0.28466892
                c = 0.5 - a * math.log(4 * a)
                return math.sqrt(3 * e) if e <= 1 / 12 else a * math.log(12 * e - b) + c
            code = pq if transfer == 16 else hlg
            rows = []
            for y in range(H):
                row = bytearray([0])
                for x in range(W):
                    t = x / (W - 1)
                    top = y < H // 2
                    v = code(1000 * t * t if top else 200 * t)
                    for c in ((v, v, v) if top else (v, v * 0.8, v * 0.5)):
                        row += struct.pack('>H', int(round(c * 65535)))
                rows.append(bytes(row))
            def chunk(kind, data):
                return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
            with open(sys.argv[1], 'wb') as f:
                f.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, 16, 2, 0, 0, 0))
                        + chunk(b'IDAT', zlib.compress(b''.join(rows))) + chunk(b'IEND', b''))
            """
        let made = try ProcessRunner.runBlocking(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, png])
        guard made.status == 0 else { throw HDRPhotoFailure(description: "python3: \(made)") }
        let encoded = try ProcessRunner.runBlocking(
            URL(fileURLWithPath: "/usr/bin/heif-enc"), ["-b", "10", "-q", "92", "-o", plain, png])
        guard encoded.status == 0 else { throw HDRPhotoFailure(description: "heif-enc: \(encoded)") }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        let labelled = try withColour(bytes, primaries: 9, transfer: transfer, matrix: 9, fullRange: true)
        try Data(labelled).write(to: URL(fileURLWithPath: heic))
        return (png, heic)
    }

    /// `heif` with a `colr`/`nclx` property associated with its primary item (see the type's description).
    public static func withColour(_ heif: [UInt8], primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) throws
        -> [UInt8]
    {
        guard let meta = boxes(heif, in: 0..<heif.count).first(where: { $0.type == "meta" }) else {
            throw HDRPhotoFailure(description: "no meta box")
        }
        let metaPayload = meta.payload.lowerBound + 4  // a full box: version and flags
        var rebuilt: [UInt8] = Array(heif[meta.payload.lowerBound..<metaPayload])
        var primary: UInt32?
        for child in boxes(heif, in: metaPayload..<meta.payload.upperBound) where child.type == "pitm" {
            let p = child.payload.lowerBound
            primary = heif[p] == 0 ? UInt32(be16(heif, p + 4)) : be32(heif, p + 4)
        }
        guard let primary else { throw HDRPhotoFailure(description: "no pitm") }
        for child in boxes(heif, in: metaPayload..<meta.payload.upperBound) {
            guard child.type == "iprp" else {
                rebuilt += heif[child.range]
                continue
            }
            var iprp: [UInt8] = []
            var index = 0
            for property in boxes(heif, in: child.payload) {
                if property.type == "ipco" {
                    index = boxes(heif, in: property.payload).count + 1
                    let nclx =
                        Array("nclx".utf8) + u16(primaries) + u16(transfer) + u16(matrix) + [fullRange ? 0x80 : 0]
                    iprp += box("ipco", Array(heif[property.payload]) + box("colr", nclx))
                } else if property.type == "ipma" {
                    iprp += box("ipma", try associating(Array(heif[property.payload]), item: primary, with: index))
                } else {
                    iprp += heif[property.range]
                }
            }
            rebuilt += box("iprp", iprp)
        }
        var out = heif
        out.replaceSubrange(meta.range.lowerBound + 4..<meta.range.lowerBound + 8, with: Array("free".utf8))
        return out + box("meta", rebuilt)
    }

    /// An `ipma` payload with `index` (essential) added to `item`'s associations.
    private static func associating(_ ipma: [UInt8], item: UInt32, with index: Int) throws -> [UInt8] {
        let version = ipma[0]
        let wide = ipma[3] & 1 != 0
        guard index < (wide ? 0x8000 : 0x80) else { throw HDRPhotoFailure(description: "too many properties") }
        var out = Array(ipma[0..<8])
        var at = 8
        for _ in 0..<Int(be32(ipma, 4)) {
            let id = version < 1 ? UInt32(be16(ipma, at)) : be32(ipma, at)
            let idSize = version < 1 ? 2 : 4
            let count = Int(ipma[at + idSize])
            let entries = Array(ipma[at + idSize + 1..<at + idSize + 1 + count * (wide ? 2 : 1)])
            out += ipma[at..<at + idSize]
            if id == item {
                out += [UInt8(count + 1)] + entries + (wide ? u16(0x8000 | index) : [UInt8(0x80 | index)])
            } else {
                out += [UInt8(count)] + entries
            }
            at += idSize + 1 + entries.count
        }
        return out
    }

    private struct Box {
        let type: String
        let range: Range<Int>
        let payload: Range<Int>
    }

    private static func boxes(_ bytes: [UInt8], in range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            let size = Int(be32(bytes, at))
            guard size >= 8, at + size <= range.upperBound else { break }
            found.append(
                Box(type: String(decoding: bytes[at + 4..<at + 8], as: UTF8.self), range: at..<at + size,
                    payload: at + 8..<at + size))
            at += size
        }
        return found
    }

    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(payload.count + 8)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array(type.utf8) + payload
    }

    private static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    private static func be16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) << 8 | UInt16(b[at + 1]) }
    private static func be32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}

public struct HDRPhotoFailure: Error, CustomStringConvertible {
    public let description: String
}
