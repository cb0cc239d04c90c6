/// An image as photodrop hands it out on Linux, where there is no UIKit: encoded bytes with their format and pixel
/// size (what a thumbnail file or an HTTP response holds).
public struct EncodedImage: Sendable, Equatable {
    public enum Format: String, Sendable {
        case jpeg, webp

        public var mimeType: String { self == .jpeg ? "image/jpeg" : "image/webp" }
        public var fileExtension: String { self == .jpeg ? "jpg" : "webp" }
    }

    public let bytes: [UInt8]
    public let format: Format
    public let pixelWidth: Int
    public let pixelHeight: Int
}
