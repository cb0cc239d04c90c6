/// Names of video and audio sample-entry codes, and what to tell a person whose file uses one Apple devices cannot
/// play.
enum Codecs {
    private static let visual: Set<FourCC> = [
        "avc1", "avc2", "avc3", "avc4", "hvc1", "hev1", "hvc2", "hev2", "dvh1", "dvhe", "dva1", "dvav", "mp4v", "jpeg",
        "mjpa", "mjpb", "apch", "apcn", "apcs", "apco", "ap4h", "ap4x", "aprn", "aprh", "av01", "vp08", "vp09", "vvc1",
        "vvi1", "s263", "h263", "mjp2", "mp2v", "mp1v", "xvid", "XVID", "DIVX", "DX50", "FMP4", "WVC1", "raw ", "yuv2",
        "2vuy", "v210", "CRAW", "dvc ", "dvcp", "dvpp", "dv5n", "dv5p", "rle ", "cvid", "SVQ1", "SVQ3", "png ", "tiff",
        "encv", "avs2", "lhv1", "lhe1",
    ]
    private static let audio: Set<FourCC> = [
        "mp4a", "ac-3", "ec-3", "ac-4", "alac", "lpcm", "twos", "sowt", "in24", "in32", "fl32", "fl64", "raw ", "NONE",
        "ulaw", "alaw", "ima4", ".mp3", "samr", "sawb", "sawp", "Opus", "fLaC", "dtsc", "dtsh", "dtsl", "dtse", "mha1",
        "mhm1", "QDM2", "QDMC", "agsm", "enca", "sevc", "sqcp", "mlpa", "aac ",
    ]

    static func isVisual(_ code: FourCC) -> Bool { visual.contains(code) }
    static func isAudio(_ code: FourCC) -> Bool { audio.contains(code) }

    /// MPEG-4 object types of MP3 (MPEG-1 and MPEG-2 audio layer 3) carried in `mp4a`.
    static let mp3ObjectTypes: Set<UInt8> = [0x69, 0x6B]

    /// A human name for a video sample entry.
    static func videoName(_ code: FourCC) -> String {
        switch code {
        case "avc1", "avc2", "avc3", "avc4": return "H.264"
        case "hvc1", "hev1", "hvc2", "hev2": return "HEVC"
        case "lhv1", "lhe1": return "MV-HEVC"
        case "dvh1", "dvhe": return "Dolby Vision HEVC"
        case "dva1", "dvav": return "Dolby Vision H.264"
        case "mp4v": return "MPEG-4 Part 2"
        case "jpeg", "mjpa", "mjpb": return "Motion JPEG"
        case "apch": return "ProRes 422 HQ"
        case "apcn": return "ProRes 422"
        case "apcs": return "ProRes 422 LT"
        case "apco": return "ProRes 422 Proxy"
        case "ap4h": return "ProRes 4444"
        case "ap4x": return "ProRes 4444 XQ"
        case "aprn", "aprh": return "ProRes RAW"
        case "av01": return "AV1"
        case "vp08": return "VP8"
        case "vp09": return "VP9"
        case "vvc1", "vvi1": return "H.266/VVC"
        case "s263", "h263": return "H.263"
        case "mjp2": return "Motion JPEG 2000"
        case "mp2v", "mp1v": return "MPEG-1/2 video"
        case "xvid", "XVID", "DIVX", "DX50", "FMP4": return "MPEG-4 ASP (DivX/Xvid)"
        case "WVC1": return "VC-1"
        case "raw ", "yuv2", "2vuy", "v210": return "uncompressed video"
        case "dvc ", "dvcp", "dvpp", "dv5n", "dv5p": return "DV"
        case "rle ": return "QuickTime Animation"
        case "cvid": return "Cinepak"
        case "SVQ1", "SVQ3": return "Sorenson Video"
        case "png ": return "PNG video"
        case "avs2": return "AVS2"
        default: return "'\(code)'"
        }
    }

    /// A human name for an audio sample entry (with its MPEG-4 object type for `mp4a`).
    static func audioName(_ code: FourCC, objectType: UInt8? = nil) -> String {
        switch code {
        case "mp4a":
            switch objectType {
            case nil, 0x40, 0x66, 0x67, 0x68: return "AAC"
            case 0x69, 0x6B: return "MP3"
            case 0xA5: return "AC-3"
            case 0xA6: return "E-AC-3"
            case 0xAD: return "Opus"
            case 0xDD: return "Vorbis"
            case let t?: return "MPEG-4 audio (object type 0x\(String(t, radix: 16, uppercase: true)))"
            }
        case "ac-3": return "AC-3"
        case "ec-3": return "E-AC-3"
        case "ac-4": return "AC-4"
        case "alac": return "ALAC"
        case "lpcm", "twos", "sowt", "in24", "in32", "fl32", "fl64": return "LPCM"
        case "raw ", "NONE": return "8-bit PCM"
        case "ulaw": return "µ-law"
        case "alaw": return "A-law"
        case "ima4": return "IMA4"
        case ".mp3": return "MP3"
        case "samr": return "AMR-NB"
        case "sawb", "sawp": return "AMR-WB"
        case "Opus": return "Opus"
        case "fLaC": return "FLAC"
        case "dtsc", "dtsh", "dtsl", "dtse": return "DTS"
        case "mha1", "mhm1": return "MPEG-H 3D Audio"
        case "QDM2", "QDMC": return "QDesign"
        case "mlpa": return "Dolby TrueHD"
        default: return "'\(code)'"
        }
    }

    private static let transcodeVideo =
        "transcode it to H.264 or HEVC, e.g. `ffmpeg -i INPUT -c:v libx264 -c:a aac OUTPUT.mp4`"
    private static let transcodeAudio =
        "keep the video and transcode the audio to AAC: `ffmpeg -i INPUT -c:v copy -c:a aac OUTPUT.mp4`"

    /// Why a video codec is rejected and what to do.
    static func videoRejection(_ code: FourCC, policy: VideoPolicy) -> String {
        let name = videoName(code)
        switch code {
        case "hev1", "hev2":
            return "HEVC video tagged '\(code)' is not playable on Apple devices, which need the 'hvc1' tag; remux it "
                + "without re-encoding: `ffmpeg -i INPUT -c copy -tag:v hvc1 OUTPUT.mp4`"
        case "dvhe":
            return "Dolby Vision video tagged 'dvhe' is not playable on Apple devices, which need 'dvh1' (or 'hvc1'); "
                + "remux it without re-encoding: `ffmpeg -i INPUT -c copy -tag:v dvh1 OUTPUT.mp4`"
        case "avc2", "avc4":
            return "H.264 video tagged '\(code)' is not playable on Apple devices; remux it with `-tag:v avc1`: "
                + "`ffmpeg -i INPUT -c copy -tag:v avc1 OUTPUT.mp4`"
        default:
            if VideoPolicy.appleDefault.videoCodecs.contains(code.description) {
                return "\(name) video ('\(code)') is not in video.videoCodecs of the configuration; add '\(code)' "
                    + "there to accept it, or \(transcodeVideo)"
            }
            if name.hasPrefix("'") {
                return "video coded as \(name) is not playable on Apple devices; \(transcodeVideo)"
            }
            return "\(name) video ('\(code)') is not playable on Apple devices; \(transcodeVideo)"
        }
    }

    /// Why an audio codec is rejected and what to do.
    static func audioRejection(_ code: FourCC, objectType: UInt8?, policy: VideoPolicy) -> String {
        let name = audioName(code, objectType: objectType)
        if code == "mp4a", let objectType, mp3ObjectTypes.contains(objectType) {
            return "MP3 audio inside an MP4/QuickTime file ('mp4a' object type 0x"
                + "\(String(objectType, radix: 16, uppercase: true))) plays silent on Apple devices; \(transcodeAudio)"
        }
        switch code {
        case ".mp3":
            return "MP3 audio ('.mp3') inside a QuickTime file plays silent on Apple devices; \(transcodeAudio)"
        case "samr", "sawb", "sawp":
            return "\(name) audio ('\(code)') is not played by Apple devices; \(transcodeAudio)"
        default:
            if VideoPolicy.appleDefault.audioCodecs.contains(code.description),
                !policy.audioCodecs.contains(code.description)
            {
                return "\(name) audio ('\(code)') is not in video.audioCodecs of the configuration; add '\(code)' "
                    + "there to accept it, or \(transcodeAudio)"
            }
            if name.hasPrefix("'") {
                return "audio coded as \(name) is not playable on Apple devices; \(transcodeAudio)"
            }
            return "\(name) audio ('\(code)') is not playable on Apple devices; \(transcodeAudio)"
        }
    }
}
