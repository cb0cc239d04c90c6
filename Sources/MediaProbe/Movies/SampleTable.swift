/// Reads a track's sample table (`stbl`): sample descriptions, sample count and how far into the file the sample
/// data reaches (from `stsz`/`stz2`, `stsc` and `stco`/`co64`).
enum SampleTable {
    /// At most this many sample entries are read per track.
    static let maxEntries = 16

    static func read(_ bytes: [UInt8], _ stbl: BoxHeader, into track: inout Movie.Track) throws(ParseError) {
        var children = BoxIterator(bytes, payloadOf: stbl)
        var sizes: SampleSizes?
        var chunkRuns: [(firstChunk: UInt32, samplesPerChunk: UInt32)] = []
        var chunkOffsets: ChunkOffsets?
        while let child = try children.next() {
            switch child.type {
            case "stsd": track.entries = try readDescriptions(bytes, child)
            case "stsz", "stz2": sizes = try SampleSizes(bytes, child)
            case "stsc": chunkRuns = try readChunkRuns(bytes, child)
            case "stco", "co64": chunkOffsets = try ChunkOffsets(bytes, child)
            case "stts": track.sampleDuration = try readTimeToSample(bytes, child)
            default: break
            }
        }
        track.sampleCount = sizes?.count ?? 0
        if let chunkOffsets, let sizes {
            track.dataEnd = try dataEnd(sizes: sizes, runs: chunkRuns, offsets: chunkOffsets)
            if chunkOffsets.count > 0, sizes.count > 0 {
                track.dataStart = Int64(clamping: (0..<chunkOffsets.count).lazy.map(chunkOffsets.offset).min() ?? 0)
            }
        } else if track.sampleCount > 0 {
            throw ParseError("track \(track.id) has \(track.sampleCount) samples but no chunk offset table")
        }
    }

    // MARK: timing

    /// The sum of the sample durations in a time-to-sample table (`stts`: runs of sample count and duration), in the
    /// track's timescale; nil for a table that is cut short. Malformed timing is not a structural defect (players
    /// fall back to the headers), so it never makes a movie corrupt.
    private static func readTimeToSample(_ bytes: [UInt8], _ box: BoxHeader) throws(ParseError) -> UInt64? {
        var r = BoxIterator.payload(bytes, box)
        guard (try? r.skip(4)) != nil, let count = try? r.u32(), Int(count) <= r.remaining / 8 else { return nil }
        var total: UInt64 = 0
        for _ in 0..<Int(count) {
            guard let samples = try? r.u32(), let delta = try? r.u32() else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(UInt64(samples) * UInt64(delta))
            guard !overflow else { return nil }
            total = sum
        }
        return total
    }

    // MARK: sample descriptions

    private static func readDescriptions(_ bytes: [UInt8], _ stsd: BoxHeader) throws(ParseError) -> [Movie.SampleEntry]
    {
        var r = BoxIterator.payload(bytes, stsd)
        try r.skip(4)
        let count = try r.u32()
        var entries: [Movie.SampleEntry] = []
        var iterator = BoxIterator(bytes, payloadOf: stsd, skip: 8)
        while entries.count < min(Int(count), maxEntries), let box = try iterator.next() {
            entries.append(readEntry(bytes, box))
        }
        return entries
    }

    /// Where a sample entry's child boxes start: after the visual (78 bytes) or audio (28, 44 or 64 bytes by
    /// QuickTime sound description version) fields; `nil` for other entries.
    private static func childrenStart(_ bytes: [UInt8], _ box: BoxHeader, kind: EntryKind) -> Int? {
        let p = Int(box.payloadOffset)
        switch kind {
        case .visual: return p + 78
        case .audio:
            guard p + 10 <= Int(box.end) else { return nil }
            let version = ByteReader.load16(bytes, p + 8, false)
            switch version {
            case 1: return p + 44
            case 2: return p + 64
            default: return p + 28
            }
        case .other: return nil
        }
    }

    private enum EntryKind { case visual, audio, other }

    private static func kind(of format: FourCC, in bytes: [UInt8], _ box: BoxHeader) -> EntryKind {
        if Codecs.isAudio(format) { return .audio }
        if Codecs.isVisual(format) { return .visual }
        // An unknown entry: a visual entry has width/height and 72 dpi resolution fields.
        let p = Int(box.payloadOffset)
        if p + 78 <= Int(box.end), ByteReader.load32(bytes, p + 28, false) == 0x0048_0000 { return .visual }
        return .other
    }

    private static func readEntry(_ bytes: [UInt8], _ box: BoxHeader) -> Movie.SampleEntry {
        var entry = Movie.SampleEntry(format: box.type)
        let entryKind = kind(of: box.type, in: bytes, box)
        if entryKind == .visual {
            let p = Int(box.payloadOffset)
            if p + 28 <= Int(box.end) {
                let w = Int(ByteReader.load16(bytes, p + 24, false))
                let h = Int(ByteReader.load16(bytes, p + 26, false))
                if w > 0, h > 0 {
                    entry.width = w
                    entry.height = h
                }
            }
        }
        guard let start = childrenStart(bytes, box, kind: entryKind), start <= Int(box.end) else { return entry }
        var children = BoxIterator(bytes, range: start..<Int(box.end))
        for child in (try? children.all(lenient: true)) ?? [] {
            readEntryChild(bytes, child, into: &entry, depth: 0)
        }
        return entry
    }

    private static func readEntryChild(
        _ bytes: [UInt8], _ child: BoxHeader, into entry: inout Movie.SampleEntry, depth: Int
    ) {
        switch child.type {
        case "esds":
            if entry.objectType == nil { entry.objectType = objectType(bytes, child) }
        case "dvcC", "dvvC", "dvwC":
            entry.hasDolbyVisionConfig = true
        case "avcC":
            entry.parameterSetSize = ParameterSets.avcPictureSize(bytes[Int(child.payloadOffset)..<Int(child.end)])
        case "hvcC":
            entry.parameterSetSize = ParameterSets.hevcPictureSize(bytes[Int(child.payloadOffset)..<Int(child.end)])
        case "sinf":
            var inner = BoxIterator(bytes, payloadOf: child)
            for box in (try? inner.all(lenient: true)) ?? [] {
                var r = BoxIterator.payload(bytes, box)
                if box.type == "frma", let format = try? r.fourCC() { entry.originalFormat = format }
                if box.type == "schm", (try? r.skip(4)) != nil, let scheme = try? r.fourCC() {
                    entry.schemeType = scheme
                }
            }
        case "wave" where depth < 2:
            // QuickTime sound descriptions keep `esds` (and `frma`) inside `wave`.
            var inner = BoxIterator(bytes, payloadOf: child)
            for box in (try? inner.all(lenient: true)) ?? [] where box.type != "frma" {
                readEntryChild(bytes, box, into: &entry, depth: depth + 1)
            }
        default: break
        }
    }

    /// The `objectTypeIndication` of the DecoderConfigDescriptor inside an `esds` box.
    static func objectType(_ bytes: [UInt8], _ esds: BoxHeader) -> UInt8? {
        var r = BoxIterator.payload(bytes, esds)
        guard (try? r.skip(4)) != nil else { return nil }
        func descriptor(_ r: inout ByteReader) -> (tag: UInt8, length: Int)? {
            guard let tag = try? r.u8() else { return nil }
            var length = 0
            for _ in 0..<4 {
                guard let b = try? r.u8() else { return nil }
                length = length << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { break }
            }
            return (tag, length)
        }
        guard let es = descriptor(&r), es.tag == 0x03, (try? r.skip(2)) != nil, let flags = try? r.u8() else {
            return nil
        }
        if flags & 0x80 != 0 { guard (try? r.skip(2)) != nil else { return nil } }
        if flags & 0x40 != 0 {
            guard let length = try? r.u8(), (try? r.skip(Int(length))) != nil else { return nil }
        }
        if flags & 0x20 != 0 { guard (try? r.skip(2)) != nil else { return nil } }
        guard let config = descriptor(&r), config.tag == 0x04 else { return nil }
        return try? r.u8()
    }

    // MARK: sample sizes and chunks

    /// `stsz` (a fixed size or one per sample) or `stz2` (4, 8 or 16 bits per sample).
    struct SampleSizes {
        let count: Int
        let fixedSize: UInt32
        let fieldBits: Int
        let bytes: [UInt8]
        let tableStart: Int

        init(_ bytes: [UInt8], _ box: BoxHeader) throws(ParseError) {
            var r = BoxIterator.payload(bytes, box)
            try r.skip(4)
            if box.type == "stsz" {
                fixedSize = try r.u32()
                count = Int(try r.u32())
                fieldBits = 32
            } else {
                try r.skip(3)
                fieldBits = Int(try r.u8())
                guard [4, 8, 16].contains(fieldBits) else { throw ParseError("stz2 field size \(fieldBits)") }
                fixedSize = 0
                count = Int(try r.u32())
            }
            self.bytes = bytes
            tableStart = r.position
            if fixedSize == 0 {
                let needed = (count * fieldBits + 7) / 8
                guard needed <= r.remaining else {
                    throw ParseError("the sample size table lists \(count) samples but has room for fewer")
                }
            }
        }

        func size(_ i: Int) -> UInt64 {
            if fixedSize != 0 { return UInt64(fixedSize) }
            switch fieldBits {
            case 32: return UInt64(ByteReader.load32(bytes, tableStart + 4 * i, false))
            case 16: return UInt64(ByteReader.load16(bytes, tableStart + 2 * i, false))
            case 8: return UInt64(bytes[tableStart + i])
            default:
                let b = bytes[tableStart + i / 2]
                return UInt64(i % 2 == 0 ? b >> 4 : b & 0x0F)
            }
        }
    }

    struct ChunkOffsets {
        let count: Int
        let wide: Bool
        let bytes: [UInt8]
        let tableStart: Int

        init(_ bytes: [UInt8], _ box: BoxHeader) throws(ParseError) {
            var r = BoxIterator.payload(bytes, box)
            try r.skip(4)
            count = Int(try r.u32())
            wide = box.type == "co64"
            guard count <= r.remaining / (wide ? 8 : 4) else {
                throw ParseError("the chunk offset table lists \(count) chunks but has room for fewer")
            }
            self.bytes = bytes
            tableStart = r.position
        }

        func offset(_ i: Int) -> UInt64 {
            if wide {
                let p = tableStart + 8 * i
                return UInt64(ByteReader.load32(bytes, p, false)) << 32 | UInt64(ByteReader.load32(bytes, p + 4, false))
            }
            return UInt64(ByteReader.load32(bytes, tableStart + 4 * i, false))
        }
    }

    private static func readChunkRuns(_ bytes: [UInt8], _ box: BoxHeader) throws(ParseError)
        -> [(firstChunk: UInt32, samplesPerChunk: UInt32)]
    {
        var r = BoxIterator.payload(bytes, box)
        try r.skip(4)
        let count = Int(try r.u32())
        guard count <= r.remaining / 12 else {
            throw ParseError("the sample-to-chunk table lists \(count) entries but has room for fewer")
        }
        var runs: [(firstChunk: UInt32, samplesPerChunk: UInt32)] = []
        runs.reserveCapacity(count)
        for _ in 0..<count {
            let first = try r.u32()
            let perChunk = try r.u32()
            try r.skip(4)
            if let last = runs.last, first <= last.firstChunk {
                throw ParseError("the sample-to-chunk table is not in chunk order")
            }
            guard first >= 1 else { throw ParseError("the sample-to-chunk table starts at chunk 0") }
            runs.append((first, perChunk))
        }
        return runs
    }

    /// One past the last byte of the samples, walking chunks in order and giving each its samples.
    static func dataEnd(
        sizes: SampleSizes, runs: [(firstChunk: UInt32, samplesPerChunk: UInt32)], offsets: ChunkOffsets
    )
        throws(ParseError) -> Int64
    {
        var end: UInt64 = 0
        var sample = 0
        var run = 0
        for chunk in 0..<offsets.count {
            guard sample < sizes.count else { break }
            while run + 1 < runs.count, UInt64(runs[run + 1].firstChunk) <= UInt64(chunk + 1) { run += 1 }
            let perChunk = runs.isEmpty ? 1 : Int(min(UInt64(runs[run].samplesPerChunk), UInt64(sizes.count - sample)))
            var chunkEnd = offsets.offset(chunk)
            if sizes.fixedSize != 0 {
                chunkEnd &+= UInt64(perChunk) &* UInt64(sizes.fixedSize)
            } else {
                for i in sample..<sample + perChunk { chunkEnd &+= sizes.size(i) }
            }
            if chunkEnd < offsets.offset(chunk) || chunkEnd > UInt64(Int64.max / 2) {
                throw ParseError("chunk \(chunk + 1) ends beyond any possible file size")
            }
            end = max(end, chunkEnd)
            sample += perChunk
        }
        return Int64(end)
    }
}
