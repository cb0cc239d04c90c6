/// Parses a `moov` box held in memory into a ``Movie``: `mvhd`, each `trak` (`tkhd`, `mdia/mdhd`, `hdlr`,
/// `stsd`, `stts`, `stsz`/`stz2`, `stsc`, `stco`/`co64`, its own metadata), `mvex` (`mehd`, `trex`), QuickTime
/// metadata.
///
/// Structural problems (a sample table that does not fit its box, tables that contradict each other) throw
/// ``ParseError``: such a movie is `corrupt`. Metadata problems are skipped.
enum MovieParser {
    /// Parses `bytes[moov]`, where `moov`'s offsets are indices into `bytes`.
    static func parse(_ bytes: [UInt8], moov: BoxHeader) throws(ParseError) -> Movie {
        var movie = Movie()
        var defaults: [UInt32: (duration: UInt32, size: UInt32)] = [:]
        var children = BoxIterator(bytes, payloadOf: moov)
        while let child = try children.next() {
            switch child.type {
            case "mvhd": try parseMovieHeader(bytes, child, into: &movie)
            case "trak":
                if movie.tracks.count >= 256 { throw ParseError("more than 256 tracks") }
                movie.tracks.append(try parseTrack(bytes, child))
            case "mvex":
                movie.isFragmented = true
                try parseMovieExtends(bytes, child, into: &movie, defaults: &defaults)
            case "meta": movie.metadata.readMeta(bytes, child)
            case "udta": movie.metadata.readUserData(bytes, child)
            default: break
            }
        }
        for track in movie.tracks { movie.metadata.fillMissing(from: track.metadata) }
        for i in movie.tracks.indices {
            if let d = defaults[movie.tracks[i].id] {
                movie.tracks[i].defaultSampleDuration = d.duration
                movie.tracks[i].defaultSampleSize = d.size
            }
        }
        return movie
    }

    private static func parseMovieHeader(_ bytes: [UInt8], _ box: BoxHeader, into movie: inout Movie)
        throws(ParseError)
    {
        var r = BoxIterator.payload(bytes, box)
        let version = try r.u8()
        try r.skip(3)
        if version == 1 {
            movie.creationTime = try r.u64()
            try r.skip(8)
            movie.timescale = try r.u32()
            movie.duration = try r.u64()
        } else {
            movie.creationTime = UInt64(try r.u32())
            try r.skip(4)
            movie.timescale = try r.u32()
            movie.duration = UInt64(try r.u32())
        }
    }

    private static func parseMovieExtends(
        _ bytes: [UInt8], _ box: BoxHeader, into movie: inout Movie,
        defaults: inout [UInt32: (duration: UInt32, size: UInt32)]
    ) throws(ParseError) {
        var children = BoxIterator(bytes, payloadOf: box)
        while let child = try children.next() {
            var r = BoxIterator.payload(bytes, child)
            switch child.type {
            case "mehd":
                let version = try r.u8()
                try r.skip(3)
                movie.fragmentDuration = version == 1 ? try r.u64() : UInt64(try r.u32())
            case "trex":
                try r.skip(4)
                let trackID = try r.u32()
                try r.skip(8)
                let duration = try r.u32()
                let size = try r.u32()
                defaults[trackID] = (duration, size)
            default: break
            }
        }
    }

    private static func parseTrack(_ bytes: [UInt8], _ trak: BoxHeader) throws(ParseError) -> Movie.Track {
        var track = Movie.Track()
        var children = BoxIterator(bytes, payloadOf: trak)
        while let child = try children.next() {
            switch child.type {
            case "tkhd": try parseTrackHeader(bytes, child, into: &track)
            case "mdia": try parseMedia(bytes, child, into: &track)
            case "meta": track.metadata.readMeta(bytes, child)
            case "udta": track.metadata.readUserData(bytes, child)
            default: break
            }
        }
        return track
    }

    private static func parseTrackHeader(_ bytes: [UInt8], _ box: BoxHeader, into track: inout Movie.Track)
        throws(ParseError)
    {
        var r = BoxIterator.payload(bytes, box)
        let version = try r.u8()
        let flags = try r.u24()
        track.isEnabled = flags & 1 != 0
        if version == 1 {
            track.creationTime = try r.u64()
            try r.skip(8)
            track.id = try r.u32()
            try r.skip(4 + 8)
        } else {
            track.creationTime = UInt64(try r.u32())
            try r.skip(4)
            track.id = try r.u32()
            try r.skip(4 + 4)
        }
        try r.skip(8 + 2 + 2 + 2 + 2)
        var matrix: [Int32] = []
        for _ in 0..<9 { matrix.append(try r.i32()) }
        track.orientation = orientation(matrix)
        track.presentationWidth = Double(try r.u32()) / 65536
        track.presentationHeight = Double(try r.u32()) / 65536
    }

    /// The EXIF orientation of a track matrix `[a b u c d v x y w]` (a, b, c, d in 16.16 fixed point).
    static func orientation(_ m: [Int32]) -> Int {
        func unit(_ v: Int32) -> Int { v > 0x8000 ? 1 : v < -0x8000 ? -1 : 0 }
        switch (unit(m[0]), unit(m[1]), unit(m[3]), unit(m[4])) {
        case (1, 0, 0, 1): return 1
        case (-1, 0, 0, 1): return 2
        case (-1, 0, 0, -1): return 3
        case (1, 0, 0, -1): return 4
        case (0, 1, 1, 0): return 5
        case (0, 1, -1, 0): return 6
        case (0, -1, -1, 0): return 7
        case (0, -1, 1, 0): return 8
        default: return 1
        }
    }

    private static func parseMedia(_ bytes: [UInt8], _ mdia: BoxHeader, into track: inout Movie.Track)
        throws(ParseError)
    {
        var children = BoxIterator(bytes, payloadOf: mdia)
        var stbl: BoxHeader?
        while let child = try children.next() {
            switch child.type {
            case "mdhd":
                var r = BoxIterator.payload(bytes, child)
                let version = try r.u8()
                try r.skip(3)
                if version == 1 {
                    try r.skip(16)
                    track.timescale = try r.u32()
                    track.duration = try r.u64()
                } else {
                    try r.skip(8)
                    track.timescale = try r.u32()
                    track.duration = UInt64(try r.u32())
                }
            case "hdlr":
                var r = BoxIterator.payload(bytes, child)
                try r.skip(8)
                track.handler = try r.fourCC()
            case "minf":
                stbl = BoxIterator.first("stbl", in: bytes, payloadOf: child)
            default: break
            }
        }
        if let stbl { try SampleTable.read(bytes, stbl, into: &track) }
    }
}
