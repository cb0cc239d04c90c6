import FoundationEssentials

/// A picture the helper made: encoded bytes and their pixel size.
public struct RenderedPicture: Sendable, Equatable {
    public var mimeType: String
    public var width: Int
    public var height: Int
    public var data: Data

    public init(mimeType: String, width: Int, height: Int, data: Data) {
        self.mimeType = mimeType
        self.width = width
        self.height = height
        self.data = data
    }
}
