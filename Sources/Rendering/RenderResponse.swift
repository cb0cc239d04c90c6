/// The helper's answer to a ``RenderRequest``: the pictures' sizes (their bytes travel beside this header, in order),
/// or why none could be made.
public struct RenderResponse: Codable, Sendable, Equatable {
    public struct Picture: Codable, Sendable, Equatable {
        public var mimeType: String
        public var width: Int
        public var height: Int

        public init(mimeType: String, width: Int, height: Int) {
            self.mimeType = mimeType
            self.width = width
            self.height = height
        }
    }

    public var id: UInt64
    public var pictures: [Picture]
    /// The decoder's message when the file could not be rendered (damaged, unsupported, too many pixels).
    public var failure: String?
    /// What the decoders logged while working on the file (libvips warnings), for photodrop's log.
    public var warnings: [String]

    public init(id: UInt64, pictures: [Picture] = [], failure: String? = nil, warnings: [String] = []) {
        self.id = id
        self.pictures = pictures
        self.failure = failure
        self.warnings = warnings
    }
}
