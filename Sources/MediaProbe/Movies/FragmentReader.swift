/// Reads movie fragments (`moof` → `traf` → `tfhd`/`trun`): how many samples each track has in fragments, their
/// duration, and how far into the file their data reaches.
enum FragmentReader {
    /// At most this many bytes of `moof` boxes are read in total.
    static let maxTotalBytes: Int64 = 64 << 20

    static func read(_ source: ByteSource, moofs: [BoxHeader], into movie: inout Movie) throws(ProbeError) -> String? {
        var total: Int64 = 0
        for moof in moofs {
            total += moof.size
            guard total <= maxTotalBytes else {
                return "the movie fragments hold more than \(maxTotalBytes >> 20) MB of headers"
            }
            guard moof.end <= source.size, let bytes = try source.read(at: moof.offset, count: Int(moof.size)) else {
                continue
            }
            let local = BoxHeader(
                type: moof.type, offset: 0, headerSize: moof.headerSize, size: moof.size, userType: nil)
            do {
                try readFragment(bytes, local, fileOffset: moof.offset, into: &movie)
            } catch {
                return "movie fragment at offset \(moof.offset) is malformed: \(error)"
            }
            movie.fragmentCount += 1
        }
        return nil
    }

    private static func readFragment(_ bytes: [UInt8], _ moof: BoxHeader, fileOffset: Int64, into movie: inout Movie)
        throws(ParseError)
    {
        var children = BoxIterator(bytes, payloadOf: moof)
        var previousEnd: Int64?
        while let traf = try children.next() {
            guard traf.type == "traf" else { continue }
            var parts = BoxIterator(bytes, payloadOf: traf)
            var trackID: UInt32?
            var base: Int64 = fileOffset
            var explicitBase = false
            var baseIsMoof = false
            var defaultDuration: UInt32?
            var defaultSize: UInt32?
            var cursor: Int64?
            while let box = try parts.next() {
                var r = BoxIterator.payload(bytes, box)
                switch box.type {
                case "tfhd":
                    try r.skip(1)
                    let flags = try r.u24()
                    trackID = try r.u32()
                    if flags & 0x1 != 0 {
                        base = Int64(bitPattern: try r.u64())
                        explicitBase = true
                    }
                    if flags & 0x2 != 0 { try r.skip(4) }
                    if flags & 0x8 != 0 { defaultDuration = try r.u32() }
                    if flags & 0x10 != 0 { defaultSize = try r.u32() }
                    baseIsMoof = flags & 0x20000 != 0
                    if !explicitBase, !baseIsMoof, let previousEnd { base = previousEnd }
                case "trun":
                    guard let trackID, let index = movie.tracks.firstIndex(where: { $0.id == trackID }) else {
                        throw ParseError("a track run refers to no track of the movie")
                    }
                    try r.skip(1)
                    let flags = try r.u24()
                    let count = Int(try r.u32())
                    var start = cursor ?? base
                    if flags & 0x1 != 0 { start = base + Int64(try r.i32()) }
                    if flags & 0x4 != 0 { try r.skip(4) }
                    let perSample =
                        (flags & 0x100 != 0 ? 4 : 0) + (flags & 0x200 != 0 ? 4 : 0) + (flags & 0x400 != 0 ? 4 : 0)
                        + (flags & 0x800 != 0 ? 4 : 0)
                    guard perSample == 0 || count <= r.remaining / perSample else {
                        throw ParseError("a track run lists \(count) samples but has room for fewer")
                    }
                    let track = movie.tracks[index]
                    let sampleDuration = UInt64(defaultDuration ?? track.defaultSampleDuration)
                    let sampleSize = UInt64(defaultSize ?? track.defaultSampleSize)
                    var bytesInRun: UInt64 = 0
                    var duration: UInt64 = 0
                    if perSample == 0 {
                        // Every sample has the default duration and size: no per-sample loop (a run may claim
                        // millions of samples in a few bytes).
                        duration = UInt64(count).multipliedReportingOverflow(by: sampleDuration).partialValue
                        let (total, overflow) = UInt64(count).multipliedReportingOverflow(by: sampleSize)
                        bytesInRun = overflow ? UInt64.max : total
                    } else {
                        for _ in 0..<count {
                            duration &+= flags & 0x100 != 0 ? UInt64(try r.u32()) : sampleDuration
                            bytesInRun &+= flags & 0x200 != 0 ? UInt64(try r.u32()) : sampleSize
                            if flags & 0x400 != 0 { try r.skip(4) }
                            if flags & 0x800 != 0 { try r.skip(4) }
                        }
                    }
                    guard start >= 0, bytesInRun < UInt64(Int64.max / 4) else {
                        throw ParseError("a track run points outside any possible file")
                    }
                    let end = start + Int64(bytesInRun)
                    cursor = end
                    previousEnd = end
                    movie.fragmentDataEnd = max(movie.fragmentDataEnd, end)
                    movie.tracks[index].fragmentSampleCount += count
                    movie.tracks[index].fragmentDuration &+= duration
                default: break
                }
            }
        }
    }
}
