/// Writes ISO-BMFF / QuickTime boxes for fixtures.
enum BMFF {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        .be32(8 + payload.count) + .fourCC(type) + payload
    }

    static func box(_ type: String, _ children: [[UInt8]]) -> [UInt8] { box(type, children.flatMap { $0 }) }

    static func full(_ type: String, version: UInt8 = 0, flags: Int = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)] + payload)
    }

    /// A box with a 64-bit `largesize` header.
    static func large(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        .be32(1) + .fourCC(type) + .be64(UInt64(16 + payload.count)) + payload
    }

    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        box("ftyp", .fourCC(major) + .be32(0) + compatible.flatMap { [UInt8].fourCC($0) })
    }

    static let identity: [Int32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]
    static let rotate90: [Int32] = [0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x4000_0000]

    static func matrix(_ m: [Int32]) -> [UInt8] { m.flatMap { [UInt8].be32(Int(UInt32(bitPattern: $0))) } }
}

/// One track of a fixture movie.
struct TrackSpec {
    var handler = "vide"
    var codec = "avc1"
    var width = 640
    var height = 480
    var sampleSizes = [100, 120, 90]
    /// The MPEG-4 object type written in an `esds` (for `mp4a`/`mp4v`).
    var objectType: UInt8?
    /// Encrypts the entry: `encv`/`enca` with `sinf/frma` naming `codec`.
    var encrypted = false
    var dolbyVision = false
    /// A QuickTime sound description version 1 with the `esds` inside `wave`.
    var quickTimeSoundV1 = false
    var matrix = BMFF.identity
    /// The `tkhd` creation time, seconds since 1904.
    var creationTime = 0
    var timescale = 600
    var duration = 1800
    /// Writes `co64` instead of `stco`.
    var wideOffsets = false
    /// Writes `stz2` with 4-, 8- or 16-bit fields instead of `stsz`.
    var compactSizeBits: Int?

    static func video(_ codec: String = "avc1") -> TrackSpec { TrackSpec(codec: codec) }
    static func audio(_ codec: String = "mp4a", objectType: UInt8? = 0x40) -> TrackSpec {
        TrackSpec(
            handler: "soun", codec: codec, sampleSizes: [20, 20, 20, 20], objectType: objectType,
            timescale: 44100, duration: 132300)
    }

    var isVisual: Bool { handler == "vide" }

    func sampleEntry() -> [UInt8] {
        var children: [[UInt8]] = []
        if let objectType {
            let config: [UInt8] = [objectType, 0x15] + .zeros(3) + .be32(128_000) + .be32(128_000)
            let decoderConfig: [UInt8] = [0x04, UInt8(config.count + 4)] + config + [0x05, 0x02, 0x12, 0x10]
            let es: [UInt8] = .be16(1) + [0] + decoderConfig + [0x06, 0x01, 0x02]
            let esds = BMFF.full("esds", [0x03, UInt8(es.count)] + es)
            if quickTimeSoundV1 {
                children.append(BMFF.box("wave", [BMFF.box("frma", .fourCC(codec)), esds, .be32(8) + .zeros(4)]))
            } else {
                children.append(esds)
            }
        }
        if dolbyVision { children.append(BMFF.box("dvvC", .zeros(24))) }
        if isVisual, codec.hasPrefix("avc") { children.append(BMFF.box("avcC", [1, 0x64, 0, 0x1F, 0xFF, 0xE0])) }
        if encrypted {
            children.append(
                BMFF.box(
                    "sinf",
                    [
                        BMFF.box("frma", .fourCC(codec)), BMFF.full("schm", .fourCC("cenc") + .be32(0x10000)),
                        BMFF.box("schi", [BMFF.full("tenc", .zeros(20))]),
                    ]))
        }
        let type = encrypted ? (isVisual ? "encv" : "enca") : codec
        var fields: [UInt8] = .zeros(6) + .be16(1)
        if isVisual {
            fields +=
                .zeros(16) + .be16(width) + .be16(height) + .be32(0x48_0000) + .be32(0x48_0000) + .zeros(4)
                + .be16(1) + .zeros(32) + .be16(0x18) + .be16(0xFFFF)
        } else {
            fields +=
                .be16(quickTimeSoundV1 ? 1 : 0) + .zeros(6) + .be16(2) + .be16(16) + .zeros(4)
                + .be32(44100 << 16)
            if quickTimeSoundV1 { fields += .be32(1024) + .be32(1) + .be32(4) + .be32(2) }
        }
        return BMFF.box(type, fields + children.flatMap { $0 })
    }

    /// The `trak`, with one chunk per sample at `offsets`.
    func trak(id: Int, offsets: [Int], fragmented: Bool) -> [UInt8] {
        trak(id: id, offsets: offsets, sizes: fragmented ? [] : sampleSizes)
    }

    /// The `trak` with the given sample sizes, one chunk per sample at `offsets`.
    func trak(id: Int, offsets: [Int], sizes: [Int]) -> [UInt8] {
        let tkhd = BMFF.full(
            "tkhd", flags: 7,
            .be32(creationTime) + .be32(creationTime) + .be32(id) + .be32(0) + .be32(duration) + .zeros(8) + .be16(0) + .be16(0)
                + .be16(isVisual ? 0 : 0x100) + .be16(0) + BMFF.matrix(matrix) + .be32(isVisual ? width << 16 : 0)
                + .be32(isVisual ? height << 16 : 0))
        let mdhd = BMFF.full(
            "mdhd", .be32(0) + .be32(0) + .be32(timescale) + .be32(duration) + .be16(0x55C4) + .be16(0))
        let hdlr = BMFF.full("hdlr", .be32(0) + .fourCC(handler) + .zeros(12) + [0])
        let stsd = BMFF.full("stsd", .be32(1) + sampleEntry())
        // The samples share the track's duration evenly, so that the sample table and the headers agree.
        let stts = BMFF.full("stts", .be32(1) + .be32(sizes.count) + .be32(sizes.isEmpty ? 0 : duration / sizes.count))
        let stsc = BMFF.full("stsc", sizes.isEmpty ? .be32(0) : .be32(1) + .be32(1) + .be32(1) + .be32(1))
        let stsz: [UInt8]
        switch compactSizeBits {
        case nil:
            stsz = BMFF.full("stsz", .be32(0) + .be32(sizes.count) + sizes.flatMap { [UInt8].be32($0) })
        case 4?:
            let padded = sizes + (sizes.count % 2 == 1 ? [0] : [])
            let nibbles = stride(from: 0, to: padded.count, by: 2).map { UInt8(padded[$0] << 4 | padded[$0 + 1]) }
            stsz = BMFF.full("stz2", .zeros(3) + [4] + .be32(sizes.count) + nibbles)
        case let bits?:
            let table = sizes.flatMap { bits == 8 ? [UInt8($0)] : [UInt8].be16($0) }
            stsz = BMFF.full("stz2", .zeros(3) + [UInt8(bits)] + .be32(sizes.count) + table)
        }
        let stco =
            wideOffsets
            ? BMFF.full("co64", .be32(offsets.count) + offsets.flatMap { [UInt8].be64(UInt64($0)) })
            : BMFF.full("stco", .be32(offsets.count) + offsets.flatMap { [UInt8].be32($0) })
        let stbl = BMFF.box("stbl", [stsd, stts, stsc, stsz, stco])
        let minf = BMFF.box("minf", [BMFF.full(isVisual ? "vmhd" : "smhd", .zeros(isVisual ? 8 : 4)), stbl])
        return BMFF.box("trak", [tkhd, BMFF.box("mdia", [mdhd, hdlr, minf])])
    }
}

/// A fixture movie, written box by box.
struct MovieSpec {
    /// `nil`: no `ftyp` (an old QuickTime file).
    var majorBrand: String? = "isom"
    var compatible = ["isom", "mp41"]
    var tracks: [TrackSpec] = [.video(), .audio()]
    var moovAtEnd = false
    var creationTime = 0
    var movieTimescale = 1000
    var movieDuration = 3000
    /// QuickTime metadata keys (`moov/meta/keys` + `ilst`).
    var keys: [(String, String)] = []
    /// Samples in movie fragments (`mvex`, `moof`, `trun`) instead of the sample tables.
    var fragmented = false
    /// Extra top-level boxes before `moov`.
    var extraBoxes: [[UInt8]] = []
    /// Writes `mdat` with a 64-bit header.
    var largeMDAT = false
    /// The box the sample data goes into (`free`: samples outside every `mdat`).
    var mediaBoxType = "mdat"
    /// Added to every chunk offset (a negative one points back into the boxes before the media data).
    var chunkOffsetShift = 0

    private func moov(offsets: [[Int]]) -> [UInt8] {
        let mvhd = BMFF.full(
            "mvhd",
            .be32(creationTime) + .be32(creationTime) + .be32(movieTimescale) + .be32(movieDuration) + .be32(0x10000)
                + .be16(0x100) + .zeros(10) + BMFF.matrix(BMFF.identity) + .zeros(24) + .be32(tracks.count + 1))
        var children = [mvhd]
        for (i, track) in tracks.enumerated() {
            children.append(track.trak(id: i + 1, offsets: offsets[i], fragmented: fragmented))
        }
        if fragmented {
            children.append(
                BMFF.box(
                    "mvex",
                    tracks.indices.map { i in
                        BMFF.full("trex", .be32(i + 1) + .be32(1) + .be32(20) + .be32(0) + .be32(0))
                    }))
        }
        if !keys.isEmpty {
            let hdlr = BMFF.full("hdlr", .be32(0) + .fourCC("mdta") + .zeros(12) + [0])
            let keyEntries = keys.flatMap { (key, _) in [UInt8].be32(8 + key.utf8.count) + .fourCC("mdta") + .ascii(key)
            }
            let keysBox = BMFF.full("keys", .be32(keys.count) + keyEntries)
            let items = keys.enumerated().map { (i, pair) in
                .be32(8 + 16 + pair.1.utf8.count) + .be32(i + 1)
                    + BMFF.box("data", .be32(1) + .be32(0) + .ascii(pair.1))
            }
            children.append(BMFF.box("meta", [hdlr, keysBox, BMFF.box("ilst", items)]))
        }
        return BMFF.box("moov", children)
    }

    private var sampleBytes: [[UInt8]] {
        tracks.enumerated().map { (i, t) in
            t.sampleSizes.flatMap { [UInt8](repeating: UInt8(0x10 + i), count: $0) }
        }
    }

    private func mdat(_ payload: [UInt8]) -> [UInt8] {
        largeMDAT ? BMFF.large(mediaBoxType, payload) : BMFF.box(mediaBoxType, payload)
    }

    func build() -> [UInt8] {
        let ftyp = majorBrand.map { BMFF.ftyp($0, compatible) } ?? []
        let head = ftyp + extraBoxes.flatMap { $0 }
        if fragmented { return head + moov(offsets: tracks.map { _ in [] }) + fragments() }
        let payload = sampleBytes.flatMap { $0 }
        let mdatHeader = largeMDAT ? 16 : 8
        func offsets(dataStart: Int) -> [[Int]] {
            var next = dataStart + chunkOffsetShift
            return tracks.map { t in
                t.sampleSizes.map { size in
                    defer { next += size }
                    return next
                }
            }
        }
        let probeMoov = moov(offsets: tracks.map { t in t.sampleSizes.map { _ in 0 } })
        if moovAtEnd {
            let start = head.count + mdatHeader
            return head + mdat(payload) + moov(offsets: offsets(dataStart: start))
        }
        let start = head.count + probeMoov.count + mdatHeader
        return head + moov(offsets: offsets(dataStart: start)) + mdat(payload)
    }

    /// One `moof` + `mdat` pair holding every track's samples.
    private func fragments() -> [UInt8] {
        func moof(dataOffsets: [Int]) -> [UInt8] {
            var trafs: [[UInt8]] = []
            for (i, t) in tracks.enumerated() {
                let tfhd = BMFF.full("tfhd", flags: 0x20000, .be32(i + 1))
                let trun = BMFF.full(
                    "trun", flags: 0x301,
                    .be32(t.sampleSizes.count) + .be32(dataOffsets[i])
                        + t.sampleSizes.flatMap { [UInt8].be32(t.timescale / 30) + .be32($0) })
                trafs.append(BMFF.box("traf", [tfhd, trun]))
            }
            return BMFF.box("moof", [BMFF.full("mfhd", .be32(1))] + trafs)
        }
        let probe = moof(dataOffsets: tracks.map { _ in 0 })
        var next = probe.count + 8
        let dataOffsets = tracks.map { t -> Int in
            defer { next += t.sampleSizes.reduce(0, +) }
            return next
        }
        return moof(dataOffsets: dataOffsets) + BMFF.box("mdat", sampleBytes.flatMap { $0 })
    }
}
