/// What photodrop reads from a movie's `moov` (and `moof`) boxes: tracks, codecs, timing, sample counts and where
/// the sample data lies.
struct Movie {
    /// One sample description (`stsd` entry).
    struct SampleEntry: Equatable {
        /// The sample entry type: the codec, or `encv`/`enca` for an encrypted track.
        var format: FourCC
        /// For an encrypted track, the original format from `sinf/frma`.
        var originalFormat: FourCC?
        /// For an encrypted track, the protection scheme from `sinf/schm` (`cenc`, `cbcs` …).
        var schemeType: FourCC?
        /// The MPEG-4 object type from `esds` (`mp4a`: 0x40 AAC, 0x69/0x6B MP3 …).
        var objectType: UInt8?
        /// The coded width and height of a visual sample entry.
        var width: Int?
        var height: Int?
        /// A `dvcC`/`dvvC` Dolby Vision configuration is attached.
        var hasDolbyVisionConfig = false
        /// The picture size of the stream's sequence parameter set (`avcC`, `hvcC`), cropped: what a decoder shows.
        var parameterSetSize: (width: Int, height: Int)?

        static func == (lhs: SampleEntry, rhs: SampleEntry) -> Bool {
            lhs.format == rhs.format && lhs.originalFormat == rhs.originalFormat && lhs.schemeType == rhs.schemeType
                && lhs.objectType == rhs.objectType && lhs.width == rhs.width && lhs.height == rhs.height
                && lhs.hasDolbyVisionConfig == rhs.hasDolbyVisionConfig
                && lhs.parameterSetSize?.width == rhs.parameterSetSize?.width
                && lhs.parameterSetSize?.height == rhs.parameterSetSize?.height
        }

        /// The codec: the original format of an encrypted entry, else the entry type.
        var codec: FourCC { originalFormat ?? format }

        /// Whether the samples are encrypted (`encv`, `enca` … with `sinf`, or Apple FairPlay `drmi`/`drms`).
        var isEncrypted: Bool {
            originalFormat != nil || [FourCC("encv"), "enca", "encs", "enct", "drmi", "drms", "drmp"].contains(format)
        }
    }

    /// One `trak`.
    struct Track {
        var id: UInt32 = 0
        var isEnabled = true
        /// `tkhd` creation time, seconds since 1904 (0 when not set).
        var creationTime: UInt64 = 0
        /// `vide`, `soun`, `meta`, `text`, `sbtl`, `tmcd`, `hint` …
        var handler: FourCC?
        var entries: [SampleEntry] = []
        /// `mdhd` timescale and duration.
        var timescale: UInt32 = 0
        var duration: UInt64 = 0
        /// EXIF-style orientation from the `tkhd` matrix.
        var orientation = 1
        /// `tkhd` width and height (16.16 fixed point, as presented).
        var presentationWidth: Double = 0
        var presentationHeight: Double = 0
        /// Samples in the sample table (`stsz`/`stz2`).
        var sampleCount = 0
        /// The samples' total duration from the time-to-sample table (`stts`), in `timescale` units.
        var sampleDuration: UInt64?
        /// QuickTime metadata of the track itself (`trak/udta`, `trak/meta`).
        var metadata = QuickTimeMetadata()
        /// One past the last byte of sample data the sample table points at (absolute file offset).
        var dataEnd: Int64 = 0
        /// The first byte of sample data (the smallest chunk offset), when the track has chunks.
        var dataStart: Int64?
        /// Samples and duration (in `timescale` units) found in movie fragments.
        var fragmentSampleCount = 0
        var fragmentDuration: UInt64 = 0
        /// `trex` defaults for fragments.
        var defaultSampleDuration: UInt32 = 0
        var defaultSampleSize: UInt32 = 0

        var isVideo: Bool { handler == "vide" }
        var isAudio: Bool { handler == "soun" }
        var totalSamples: Int { sampleCount + fragmentSampleCount }

        /// The codec of the first sample entry.
        var codec: FourCC? { entries.first?.codec }

        /// The playing time of the samples themselves (the time-to-sample table and movie fragments), in seconds.
        var sampleSeconds: Double? {
            guard timescale > 0 else { return nil }
            let units = (sampleDuration ?? 0) + fragmentDuration
            return units > 0 ? Double(units) / Double(timescale) : nil
        }

        /// Frames (samples) per second, from the sample tables; nil when their timing is unknown.
        var frameRate: Double? {
            guard let seconds = sampleSeconds, seconds > 0, totalSamples > 0 else { return nil }
            let rate = Double(totalSamples) / seconds
            return rate.isFinite && rate > 0 && rate <= 10_000 ? rate : nil
        }
    }

    /// `mvhd` timescale, duration and creation time (seconds since 1904-01-01 UTC).
    var timescale: UInt32 = 0
    var duration: UInt64 = 0
    var creationTime: UInt64 = 0
    var tracks: [Track] = []
    /// `mvex` is present: samples live in movie fragments.
    var isFragmented = false
    /// `mehd` fragment duration, in the movie timescale.
    var fragmentDuration: UInt64?
    /// Moof boxes read.
    var fragmentCount = 0
    /// One past the last byte of fragment sample data (absolute file offset).
    var fragmentDataEnd: Int64 = 0
    /// QuickTime/iTunes metadata (`meta/keys/ilst`, `udta`).
    var metadata = QuickTimeMetadata()

    var videoTracks: [Track] { tracks.filter(\.isVideo) }
    var audioTracks: [Track] { tracks.filter(\.isAudio) }

    /// The playing time in seconds: the headers' (``headerDurationSeconds``), unless the samples themselves play
    /// for a clearly shorter time (a header that claims ten hours for a two-second clip is believed no more than the
    /// samples are): then the longest track's samples.
    var durationSeconds: Double? {
        let samples = tracks.filter { $0.isVideo || $0.isAudio }.compactMap(\.sampleSeconds).max()
        guard let header = headerDurationSeconds else { return samples }
        // An edit list may shorten the presentation (trimmed clips) or delay it a little; only a header that
        // outlasts the samples by half again and over a second is a lie.
        if let samples, header > samples * 1.5 + 1 { return samples }
        return header
    }

    /// The playing time in seconds as the headers say it: `mvhd`, else `mehd`, else the longest track (fragments
    /// included).
    var headerDurationSeconds: Double? {
        if timescale > 0, duration > 0, duration != UInt64(UInt32.max), duration != UInt64.max {
            return Double(duration) / Double(timescale)
        }
        if timescale > 0, let fragmentDuration, fragmentDuration > 0 {
            return Double(fragmentDuration) / Double(timescale)
        }
        let longest = tracks.compactMap { track -> Double? in
            guard track.timescale > 0 else { return nil }
            let units = track.duration > 0 && track.duration != UInt64(UInt32.max) ? track.duration : 0
            return Double(units + track.fragmentDuration) / Double(track.timescale)
        }.max()
        return longest.flatMap { $0 > 0 ? $0 : nil }
    }
}
