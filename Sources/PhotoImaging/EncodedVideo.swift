/// A video photodrop made for playing where the original cannot be played (a browser and HEVC): MP4 bytes.
public struct EncodedVideo: Sendable, Equatable {
    public let bytes: [UInt8]
    public let pixelWidth: Int
    public let pixelHeight: Int
    /// Seconds.
    public let duration: Double
    /// `video/mp4`.
    public var mimeType: String { "video/mp4" }
}
