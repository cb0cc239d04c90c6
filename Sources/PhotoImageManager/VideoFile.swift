import FoundationEssentials

/// A stored video as a player gets it (`AVAsset` on Apple platforms): the file and what is in it.
public struct VideoFile: Sendable, Equatable {
    public var fileURL: URL
    public var mimeType: String?
    /// Seconds.
    public var duration: Double
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Four-character codes (`avc1`, `hvc1`, `mp4a`), when the file says.
    public var videoCodec: String?
    public var audioCodec: String?
}

/// A Live Photo as the image manager hands it out (`PHLivePhoto`): the photo and its paired movie.
public struct LivePhoto: Sendable, Equatable {
    public var photo: ImageResult
    public var video: VideoFile
}
