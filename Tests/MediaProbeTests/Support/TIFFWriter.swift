/// Writes TIFF streams: a TIFF file or an EXIF block (IFD0 with optional EXIF and GPS directories).
struct TIFFWriter {
    enum Value {
        case ascii(String)
        case short([Int])
        case long([Int])
        case rational([(Int, Int)])
        case undefined([UInt8])
        /// A raw entry: type, count and the value bytes, written as given.
        case raw(type: Int, count: Int, bytes: [UInt8])
    }

    struct Entry {
        var tag: Int
        var value: Value
    }

    var littleEndian = true
    /// The header's magic (42; 0x4F52 for ORF, 0x55 for RW2).
    var magic = 42
    /// Bytes written right after the 8-byte header (CR2's `CR\x02\0` + raw IFD offset).
    var headerExtra: [UInt8] = []
    var ifd0: [Entry] = []
    var exif: [Entry] = []
    var gps: [Entry] = []
    /// Appended after everything, e.g. strip data; `ifd0` entries can point into it with `dataOffset(_:)`.
    var trailer: [UInt8] = []

    private func u16(_ v: Int) -> [UInt8] { littleEndian ? .le16(v) : .be16(v) }
    private func u32(_ v: Int) -> [UInt8] { littleEndian ? .le32(v) : .be32(v) }

    private func encode(_ value: Value) -> (type: Int, count: Int, bytes: [UInt8]) {
        switch value {
        case .ascii(let s): return (2, s.utf8.count + 1, .ascii(s) + [0])
        case .short(let v): return (3, v.count, v.flatMap(u16))
        case .long(let v): return (4, v.count, v.flatMap(u32))
        case .rational(let v): return (5, v.count, v.flatMap { u32($0.0) + u32($0.1) })
        case .undefined(let b): return (7, b.count, b)
        case .raw(let type, let count, let bytes): return (type, count, bytes)
        }
    }

    private func directorySize(_ entries: [Entry]) -> Int { 2 + 12 * entries.count + 4 }

    /// Offsets of IFD0, the EXIF IFD and the GPS IFD, and where the value area starts.
    private var layout: (ifd0: Int, exif: Int, gps: Int, values: Int) {
        let base = 8 + headerExtra.count
        let withPointers = ifd0Entries(exifAt: 0, gpsAt: 0)
        let exifAt = base + directorySize(withPointers)
        let gpsAt = exifAt + (exif.isEmpty ? 0 : directorySize(exif))
        let values = gpsAt + (gps.isEmpty ? 0 : directorySize(gps))
        return (base, exifAt, gpsAt, values)
    }

    private func ifd0Entries(exifAt: Int, gpsAt: Int) -> [Entry] {
        var entries = ifd0
        if !exif.isEmpty { entries.append(Entry(tag: 0x8769, value: .long([exifAt]))) }
        if !gps.isEmpty { entries.append(Entry(tag: 0x8825, value: .long([gpsAt]))) }
        return entries.sorted { $0.tag < $1.tag }
    }

    /// Where `trailer` starts in the written stream.
    var trailerOffset: Int {
        let l = layout
        let all = ifd0Entries(exifAt: l.exif, gpsAt: l.gps) + exif + gps
        let valueBytes = all.map { e -> Int in
            let n = encode(e.value).bytes.count
            return n > 4 ? n + (n & 1) : 0
        }.reduce(0, +)
        return l.values + valueBytes
    }

    func build() -> [UInt8] {
        let l = layout
        var out: [UInt8] = (littleEndian ? .ascii("II") : .ascii("MM")) + u16(magic) + u32(l.ifd0) + headerExtra
        var values: [UInt8] = []
        func directory(_ entries: [Entry]) -> [UInt8] {
            var d = u16(entries.count)
            for e in entries {
                let (type, count, bytes) = encode(e.value)
                d += u16(e.tag) + u16(type) + u32(count)
                if bytes.count <= 4 {
                    d += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    d += u32(l.values + values.count)
                    values += bytes
                    if values.count & 1 == 1 { values.append(0) }
                }
            }
            return d + u32(0)
        }
        out += directory(ifd0Entries(exifAt: l.exif, gpsAt: l.gps))
        if !exif.isEmpty { out += directory(exif) }
        if !gps.isEmpty { out += directory(gps) }
        return out + values + trailer
    }

    /// An Apple MakerNote holding a content identifier.
    static func appleMakerNote(contentIdentifier: String) -> [UInt8] {
        let value: [UInt8] = .ascii(contentIdentifier) + [0]
        let header: [UInt8] = .ascii("Apple iOS") + [0] + .be16(1) + .ascii("MM")
        if value.count <= 4 {
            let inline = value + [UInt8](repeating: 0, count: 4 - value.count)
            return header + .be16(1) + .be16(0x0011) + .be16(2) + .be32(value.count) + inline + .be32(0)
        }
        let entries: [UInt8] = .be16(1) + .be16(0x0011) + .be16(2) + .be32(value.count) + .be32(14 + 2 + 12 + 4)
        return header + entries + .be32(0) + value
    }

    /// A typical camera EXIF block.
    static func cameraExif(
        littleEndian: Bool = true, date: String = "2023:05:09 12:41:46", offset: String? = "+01:00",
        subSec: String? = "250", orientation: Int = 6, contentIdentifier: String? = nil, gps: Bool = true
    ) -> [UInt8] {
        var w = TIFFWriter(littleEndian: littleEndian)
        w.ifd0 = [
            Entry(tag: 0x010F, value: .ascii("Apple")), Entry(tag: 0x0110, value: .ascii("iPhone 14 Pro")),
            Entry(tag: 0x0112, value: .short([orientation])),
        ]
        w.exif = [Entry(tag: 0x9003, value: .ascii(date))]
        if let offset { w.exif.append(Entry(tag: 0x9011, value: .ascii(offset))) }
        if let subSec { w.exif.append(Entry(tag: 0x9291, value: .ascii(subSec))) }
        if let contentIdentifier {
            w.exif.append(Entry(tag: 0x927C, value: .undefined(appleMakerNote(contentIdentifier: contentIdentifier))))
        }
        w.exif.sort { $0.tag < $1.tag }
        if gps {
            w.gps = [
                Entry(tag: 1, value: .ascii("N")), Entry(tag: 2, value: .rational([(51, 1), (32, 1), (12, 10)])),
                Entry(tag: 3, value: .ascii("W")), Entry(tag: 4, value: .rational([(0, 1), (7, 1), (3150, 100)])),
                Entry(tag: 5, value: .raw(type: 1, count: 1, bytes: [0])),
                Entry(tag: 6, value: .rational([(2675, 100)])),
            ]
        }
        return w.build()
    }
}
