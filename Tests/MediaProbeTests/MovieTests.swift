import Foundation
import Testing

@testable import MediaProbe

@Suite("Movies: codecs, policy, completeness, metadata", .timeLimit(.minutes(3)))
struct MovieTests {
    @Test("H.264 + AAC in MP4 is a video with its size, duration and frame count")
    func acceptedH264() throws {
        let r = try Probe.bytes(MovieSpec().build(), name: "clip.txt")
        #expect(r.kind == .video)
        #expect(r.rejection == nil)
        #expect(r.mime == "video/mp4")
        #expect(r.fileExtension == "mp4")
        #expect(r.message == "H.264/AAC MP4 movie 3.0 s, 640×480")
        #expect(r.metadata.pixelWidth == 640 && r.metadata.pixelHeight == 480)
        #expect(r.metadata.frameCount == 3)
        #expect(r.metadata.videoCodec == "avc1" && r.metadata.audioCodec == "mp4a")
        #expect(r.metadata.duration == 3.0)
        #expect(r.metadata.orientation == 1)
    }

    @Test("samples outside every mdat, or inside the movie header, leave nothing to play: corrupt")
    func samplesOutsideTheMediaData() throws {
        let inFree = try Probe.memory(MovieSpec(mediaBoxType: "free").build())
        #expect(inFree.rejection == .corrupt && !inFree.isTruncated, "\(inFree.message)")
        #expect(inFree.message.contains("the samples of the video track 1 point outside the media data (every mdat box)"))
        #expect(inFree.message.hasSuffix("there is nothing to play"), "\(inFree.message)")
        // The chunk offsets point 200 bytes back: into the moov box in front of the mdat.
        let intoHeader = try Probe.memory(MovieSpec(chunkOffsetShift: -200).build())
        #expect(intoHeader.rejection == .corrupt, "\(intoHeader.message)")
        #expect(intoHeader.message.contains("point into the movie header (moov) itself"), "\(intoHeader.message)")
        // The same with the moov at the end, and a 64-bit mdat header: still media data, still a video.
        for spec in [MovieSpec(moovAtEnd: true), MovieSpec(largeMDAT: true), MovieSpec(moovAtEnd: true, largeMDAT: true)] {
            let fine = try Probe.memory(spec.build())
            #expect(fine.kind == .video && fine.rejection == nil, "\(fine.message)")
        }
    }

    @Test("media data split over adjacent mdat boxes covers a track's samples; a gap between them does not")
    func mediaDataExtents() {
        var top = TopLevelBoxes()
        top.mdatCount = 2
        top.mediaData = [100..<200, 200..<300]
        #expect(top.isMediaData(150..<250) && top.isMediaData(100..<300) && top.isMediaData(299..<300))
        #expect(!top.isMediaData(50..<150) && !top.isMediaData(250..<350) && !top.isMediaData(0..<10))
        top.mediaData = [100..<200, 208..<300]
        #expect(!top.isMediaData(150..<250), "the second mdat's header lies between")
        #expect(top.isMediaData(208..<250))
    }

    @Test(
        "every codec of the default policy is accepted",
        arguments: [
            "avc1", "avc3", "hvc1", "dvh1", "mp4v", "jpeg", "mjpa", "mjpb", "apch", "apcn", "apcs", "apco",
            "ap4h", "ap4x",
        ])
    func acceptedVideoCodecs(_ codec: String) throws {
        let r = try Probe.memory(MovieSpec(tracks: [.video(codec)]).build())
        #expect(r.kind == .video, "\(codec): \(r.message)")
    }

    @Test(
        "every audio codec of the default policy is accepted",
        arguments: [
            "mp4a", "ac-3", "ec-3", "alac", "lpcm", "twos", "sowt", "in24", "in32", "fl32", "fl64", "ulaw",
            "alaw", "ima4",
        ])
    func acceptedAudioCodecs(_ codec: String) throws {
        let audio = TrackSpec.audio(codec, objectType: codec == "mp4a" ? 0x40 : nil)
        let r = try Probe.memory(MovieSpec(tracks: [.video(), audio]).build())
        #expect(r.kind == .video, "\(codec): \(r.message)")
    }

    @Test(
        "unplayable video codecs are rejected with the fix",
        arguments: [
            ("hev1", "-tag:v hvc1"), ("dvhe", "-tag:v dvh1"), ("av01", "AV1 video"), ("vp09", "VP9 video"),
            ("vp08", "VP8 video"), ("vvc1", "H.266/VVC"), ("s263", "H.263"), ("mjp2", "Motion JPEG 2000"),
            ("avc2", "-tag:v avc1"), ("xyz1", "'xyz1'"),
        ])
    func rejectedVideoCodecs(_ codec: String, _ text: String) throws {
        let r = try Probe.memory(MovieSpec(tracks: [.video(codec), .audio()]).build())
        #expect(r.rejection == .unsupportedVideo)
        #expect(r.kind == nil)
        #expect(r.message.contains(text), "\(codec): \(r.message)")
        #expect(r.message.contains("ffmpeg"), "the message says what to do: \(r.message)")
        #expect(r.metadata.videoCodec == codec)
    }

    @Test("MP3 inside mp4a (object types 0x69 and 0x6B) and .mp3 are rejected: they play silent")
    func mp3Audio() throws {
        for audio in [
            TrackSpec.audio("mp4a", objectType: 0x6B), .audio("mp4a", objectType: 0x69),
            .audio(".mp3", objectType: nil),
        ] {
            let r = try Probe.memory(MovieSpec(tracks: [.video(), audio]).build())
            #expect(r.rejection == .unsupportedVideo)
            #expect(r.message.contains("MP3") && r.message.contains("-c:a aac"), "\(r.message)")
        }
    }

    @Test("AMR, Opus and non-AAC mp4a audio are rejected; AAC in a QuickTime wave box is accepted")
    func otherAudio() throws {
        for (audio, text) in [
            (TrackSpec.audio("samr", objectType: nil), "AMR-NB"),
            (.audio("Opus", objectType: nil), "Opus"),
            (.audio("mp4a", objectType: 0xDD), "Vorbis"),
        ] {
            let r = try Probe.memory(MovieSpec(tracks: [.video(), audio]).build())
            #expect(r.rejection == .unsupportedVideo)
            #expect(r.message.contains(text), "\(r.message)")
        }
        var wrapped = TrackSpec.audio("mp4a", objectType: 0x6B)
        wrapped.quickTimeSoundV1 = true
        let mp3 = try Probe.memory(
            MovieSpec(majorBrand: "qt  ", compatible: ["qt  "], tracks: [.video(), wrapped]).build())
        #expect(mp3.rejection == .unsupportedVideo, "the esds inside wave is found: \(mp3.message)")
        wrapped.objectType = 0x40
        let aac = try Probe.memory(
            MovieSpec(majorBrand: "qt  ", compatible: ["qt  "], tracks: [.video(), wrapped]).build())
        #expect(aac.kind == .video, "\(aac.message)")
        #expect(aac.mime == "video/quicktime" && aac.fileExtension == "mov")
    }

    @Test("an encrypted track is rejected and named")
    func encrypted() throws {
        var video = TrackSpec.video()
        video.encrypted = true
        let r = try Probe.memory(MovieSpec(tracks: [video, .audio()]).build())
        #expect(r.rejection == .unsupportedVideo)
        #expect(r.message.contains("encrypted") && r.message.contains("'encv'") && r.message.contains("'avc1'"))
        #expect(r.metadata.videoCodec == "avc1")
        var audio = TrackSpec.audio()
        audio.encrypted = true
        let a = try Probe.memory(MovieSpec(tracks: [.video(), audio]).build())
        #expect(a.rejection == .unsupportedVideo && a.message.contains("audio track 2 is encrypted"), "\(a.message)")
    }

    @Test("audio-only files are unsupportedType, not video")
    func audioOnly() throws {
        let r = try Probe.bytes(
            MovieSpec(majorBrand: "M4A ", compatible: ["M4A ", "mp42"], tracks: [.audio()]).build())
        #expect(r.rejection == .unsupportedType)
        #expect(r.message.contains("no video track (audio only: AAC"))
        #expect(r.mime == "audio/x-m4a")
        let ac3 = try Probe.memory(MovieSpec(tracks: [.audio("ac-3", objectType: nil)]).build())
        #expect(ac3.rejection == .unsupportedType && ac3.message.contains("AC-3"))
    }

    @Test("a movie without tracks, or whose video has no samples, is corrupt")
    func noSamples() throws {
        let empty = try Probe.memory(MovieSpec(tracks: []).build())
        #expect(empty.rejection == .corrupt)
        #expect(empty.message.contains("no tracks"))
        var video = TrackSpec.video()
        video.sampleSizes = []
        let r = try Probe.memory(MovieSpec(tracks: [video]).build())
        #expect(r.rejection == .corrupt)
        #expect(r.message.contains("no samples"))
        #expect(!r.isTruncated)
    }

    @Test("no moov: corrupt, truncated (the header of an interrupted recording or upload never came)")
    func noMovieHeader() throws {
        let bytes = BMFF.ftyp("isom", ["isom"]) + BMFF.box("mdat", .zeros(500))
        let r = try Probe.memory(bytes)
        #expect(r.rejection == .corrupt)
        #expect(r.isTruncated)
        #expect(r.message.contains("no movie header (moov"))
    }

    @Test("an mdat that runs past the end of the file is truncated")
    func truncatedMediaData() throws {
        let whole = MovieSpec().build()
        let r = try Probe.memory(Array(whole.dropLast(50)))
        #expect(r.rejection == .corrupt)
        #expect(r.isTruncated)
        #expect(r.message.hasPrefix("truncated: box 'mdat'"), "\(r.message)")
        let moovAtEnd = MovieSpec(moovAtEnd: true).build()
        let cut = try Probe.memory(Array(moovAtEnd.dropLast(30)))
        #expect(cut.rejection == .corrupt && cut.isTruncated)
        #expect(cut.message.contains("moov"), "\(cut.message)")
    }

    @Test("sample data past the end of the file is truncated even when every box is complete")
    func samplesPastEnd() throws {
        var bytes = MovieSpec().build()
        // Shrink mdat (and the file) by 40 bytes: boxes stay consistent, the last samples are gone.
        bytes.removeLast(40)
        let mdat = try #require(find(bytes, "mdat")) - 8
        let size =
            Int(bytes[mdat]) << 24 | Int(bytes[mdat + 1]) << 16 | Int(bytes[mdat + 2]) << 8 | Int(bytes[mdat + 3])
        bytes.replaceSubrange(mdat..<mdat + 4, with: [UInt8].be32(size - 40))
        let r = try Probe.memory(bytes)
        #expect(r.rejection == .corrupt)
        #expect(r.isTruncated)
        #expect(r.message.contains("samples of the audio track 2 reach byte"), "\(r.message)")
    }

    @Test(
        "compact sample sizes (stz2, 4/8/16-bit fields) count frames and find sample data past the end",
        arguments: [4, 8, 16])
    func compactSampleSizes(bits: Int) throws {
        var video = TrackSpec.video()
        video.sampleSizes = [9, 12, 15]
        video.compactSizeBits = bits
        var audio = TrackSpec.audio()
        audio.compactSizeBits = bits == 4 ? 8 : bits
        let spec = MovieSpec(tracks: [video, audio])
        let whole = spec.build()
        let r = try Probe.memory(whole)
        #expect(r.kind == .video, "\(r.message)")
        #expect(r.metadata.frameCount == 3)
        // Cut the file inside the sample data: the sizes from stz2 must show it.
        var cut = whole
        cut.removeLast(30)
        let mdat = try #require(find(cut, "mdat")) - 8
        let size = Int(cut[mdat]) << 24 | Int(cut[mdat + 1]) << 16 | Int(cut[mdat + 2]) << 8 | Int(cut[mdat + 3])
        cut.replaceSubrange(mdat..<mdat + 4, with: [UInt8].be32(size - 30))
        let truncated = try Probe.memory(cut)
        #expect(truncated.rejection == .corrupt && truncated.isTruncated, "\(truncated.message)")
    }

    @Test("fragmented MP4: samples in moof/trun count; a cut fragment is truncated")
    func fragmented() throws {
        let bytes = MovieSpec(fragmented: true).build()
        let r = try Probe.memory(bytes)
        #expect(r.kind == .video, "\(r.message)")
        #expect(r.metadata.frameCount == 3)
        let cut = try Probe.memory(Array(bytes.dropLast(10)))
        #expect(cut.rejection == .corrupt && cut.isTruncated)
        // moov + moof without the mdat: the run's data offset points past the end.
        let moofEnd = try #require(find(bytes, "mdat")) - 8
        let noData = try Probe.memory(Array(bytes[..<moofEnd]))
        #expect(noData.rejection == .corrupt && noData.isTruncated, "\(noData.message)")
        #expect(noData.message.contains("fragments' samples reach byte"), "\(noData.message)")
        let noFragments = try Probe.memory(Array(bytes[..<(try #require(find(bytes, "moof")) - 8)]))
        #expect(noFragments.rejection == .corrupt && noFragments.isTruncated)
    }

    @Test("a track run that claims four billion default-sized samples is judged at once")
    func hugeRun() throws {
        let moov = MovieSpec(tracks: [.video()], fragmented: true).build()
        let cut = try #require(find(moov, "moof")) - 8
        let trun = BMFF.full("trun", flags: 0x1, .be32(Int(UInt32.max)) + .be32(100))
        let moof = BMFF.box(
            "moof",
            [
                BMFF.full("mfhd", .be32(1)),
                BMFF.box("traf", [BMFF.full("tfhd", flags: 0x20010, .be32(1) + .be32(100)), trun]),
            ])
        let start = DispatchTime.now().uptimeNanoseconds
        let r = try Probe.memory(Array(moov[..<cut]) + moof + BMFF.box("mdat", .zeros(64)))
        #expect(DispatchTime.now().uptimeNanoseconds - start < 500_000_000)
        #expect(r.rejection == .corrupt && r.isTruncated, "\(r.message)")
    }

    @Test("QuickTime without ftyp, 64-bit mdat sizes, uuid and free boxes, moov at the end")
    func boxVariants() throws {
        let noFileType = try Probe.bytes(MovieSpec(majorBrand: nil, moovAtEnd: true).build())
        #expect(noFileType.kind == .video)
        #expect(noFileType.mime == "video/quicktime" && noFileType.metadata.container == "quicktime")
        let uuid = BMFF.box("uuid", [UInt8](repeating: 0xAB, count: 16) + .zeros(20))
        let large = try Probe.memory(
            MovieSpec(extraBoxes: [uuid, BMFF.box("free", .zeros(9))], largeMDAT: true).build())
        #expect(large.kind == .video, "\(large.message)")
        // A last box with size 0 runs to the end of the file.
        var toEnd = MovieSpec().build()
        let mdat = try #require(find(toEnd, "mdat")) - 8
        toEnd.replaceSubrange(mdat..<mdat + 4, with: [0, 0, 0, 0])
        #expect(try Probe.memory(toEnd).kind == .video)
    }

    @Test("brands name the container: 3GP, M4V, QuickTime")
    func containers() throws {
        let gp = try Probe.memory(MovieSpec(majorBrand: "3gp6", compatible: ["3gp6", "isom"]).build())
        #expect(gp.mime == "video/3gpp" && gp.fileExtension == "3gp" && gp.message.contains("3GP movie"))
        let m4v = try Probe.memory(MovieSpec(majorBrand: "M4V ", compatible: ["M4V ", "mp42"]).build())
        #expect(m4v.mime == "video/x-m4v" && m4v.fileExtension == "m4v")
        let qt = try Probe.memory(MovieSpec(majorBrand: "qt  ", compatible: ["qt  "]).build())
        #expect(qt.mime == "video/quicktime" && qt.fileExtension == "mov" && qt.message.contains("QuickTime movie"))
    }

    @Test("Dolby Vision as iPhones record it: hvc1 with dvvC")
    func dolbyVision() throws {
        var video = TrackSpec.video("hvc1")
        video.dolbyVision = true
        let r = try Probe.memory(MovieSpec(tracks: [video, .audio()]).build())
        #expect(r.kind == .video)
        #expect(r.message.hasPrefix("Dolby Vision HEVC/AAC"))
    }

    @Test("the video policy is configurable")
    func policy() throws {
        let hev1 = MovieSpec(tracks: [.video("hev1"), .audio()]).build()
        let lenient = VideoPolicy(videoCodecs: ["hev1"], audioCodecs: ["mp4a"])
        #expect(try Probe.memory(hev1, policy: lenient).kind == .video)
        let strict = VideoPolicy(videoCodecs: ["hvc1"], audioCodecs: ["ac-3"])
        let h264 = try Probe.memory(MovieSpec().build(), policy: strict)
        #expect(h264.rejection == .unsupportedVideo)
        #expect(h264.message.contains("video.videoCodecs"), "\(h264.message)")
        let aac = try Probe.memory(MovieSpec(tracks: [.video("hvc1"), .audio()]).build(), policy: strict)
        #expect(aac.rejection == .unsupportedVideo && aac.message.contains("video.audioCodecs"), "\(aac.message)")
        #expect(VideoPolicy(videoCodecs: ["avc1", "hevc1"], audioCodecs: ["aac"]).malformedCodes == ["aac", "hevc1"])
        #expect(VideoPolicy.appleDefault.malformedCodes.isEmpty)
    }

    @Test("QuickTime metadata: creation date, Live Photo identifier, location, make and model")
    func quickTimeMetadata() throws {
        var video = TrackSpec.video("hvc1")
        video.matrix = BMFF.rotate90
        let spec = MovieSpec(
            majorBrand: "qt  ", compatible: ["qt  "], tracks: [video, .audio()], creationTime: 3_766_000_000,
            keys: [
                ("com.apple.quicktime.creationdate", "2023-05-09T12:41:46+0100"),
                ("com.apple.quicktime.content.identifier", "9C1F8A3E-0D57-4E0B-9E4F-8A1B2C3D4E5F"),
                ("com.apple.quicktime.location.ISO6709", "+51.5334-000.1255+026.756/"),
                ("com.apple.quicktime.make", "Apple"), ("com.apple.quicktime.model", "iPhone 14 Pro"),
            ])
        let r = try Probe.memory(spec.build())
        #expect(r.kind == .video)
        let m = r.metadata
        #expect(m.captureDateSource == .quickTime)
        #expect(m.captureDate == Date(timeIntervalSince1970: 1_683_632_506))
        #expect(m.captureTimeZoneOffset == 3600)
        #expect(m.contentIdentifier == "9C1F8A3E-0D57-4E0B-9E4F-8A1B2C3D4E5F")
        #expect(m.location == MediaMetadata.Location(latitude: 51.5334, longitude: -0.1255, altitude: 26.756))
        #expect(m.make == "Apple" && m.model == "iPhone 14 Pro")
        #expect(m.orientation == 6)
    }

    @Test("without QuickTime metadata the movie header's creation time is used")
    func movieHeaderDate() throws {
        let r = try Probe.memory(MovieSpec(creationTime: 3_766_000_000).build())
        #expect(r.metadata.captureDateSource == .movieHeader)
        #expect(r.metadata.captureDate == Date(timeIntervalSince1970: 3_766_000_000 - 2_082_844_800))
        #expect(try Probe.memory(MovieSpec().build()).metadata.captureDate == nil)
        // A zero (1904) movie header: the video track's header, also UTC, instant with an unknown zone.
        var video = TrackSpec.video()
        video.creationTime = 3_766_000_000
        let track = try Probe.memory(MovieSpec(tracks: [video, .audio()]).build()).metadata
        #expect(track.captureDateSource == .movieHeader && track.captureTimeZoneOffset == nil)
        #expect(track.captureDate == Date(timeIntervalSince1970: 3_766_000_000 - 2_082_844_800))
        #expect(!track.captureDateIsFloating, "an instant, not a local time")
        // QuickTime metadata outranks the header; without a zone it is a floating local time.
        let floating = try Probe.memory(
            MovieSpec(creationTime: 3_766_000_000, keys: [("com.apple.quicktime.creationdate", "2023-05-09T12:41:46")])
                .build()
        ).metadata
        #expect(floating.captureDateSource == .quickTime && floating.captureDateIsFloating)
        #expect(floating.captureDate == Date(timeIntervalSince1970: 1_683_636_106))
    }

    /// The index just past the first occurrence of a four-character code.
    func find(_ bytes: [UInt8], _ type: String) -> Int? {
        let needle: [UInt8] = .fourCC(type)
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where Array(bytes[i..<i + 4]) == needle { return i + 4 }
        return nil
    }
}
