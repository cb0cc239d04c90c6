/// What photodrop asks its render helper for: pictures of the file whose descriptor travels with the request.
public struct RenderRequest: Codable, Sendable, Equatable {
    /// One picture to make: fitting in (or, with `fill`, filling and cropped to) `width` × `height`, never enlarged.
    public struct Output: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var fill: Bool
        /// `image/jpeg` or `image/webp`.
        public var mimeType: String
        public var quality: Int

        public init(width: Int, height: Int, fill: Bool = false, mimeType: String, quality: Int) {
            self.width = width
            self.height = height
            self.fill = fill
            self.mimeType = mimeType
            self.quality = quality
        }
    }

    /// Numbers a helper's requests, so that a reply cannot be taken for another request's.
    public var id: UInt64
    /// The pictures, largest first: the file is decoded once, for the first; each later one is made from the one
    /// before it.
    public var outputs: [Output]
    /// The most pixels a header may claim; larger images are refused before decoding.
    public var maximumPixels: Int
    /// What content detection found (`image/heic`, `video/quicktime`): picks the decoder.
    public var mimeType: String?
    /// Only this part of the upright picture (x, y, width, height in 0…1), or all of it.
    public var crop: [Double]?
    /// For a playable video (an output of type `video/mp4`, whose `width` is its short side): how many seconds of
    /// the original it shows.
    public var maximumSeconds: Double?

    public init(
        id: UInt64 = 0, outputs: [Output], maximumPixels: Int = 250_000_000, mimeType: String? = nil,
        crop: [Double]? = nil
    ) {
        self.id = id
        self.outputs = outputs
        self.maximumPixels = maximumPixels
        self.mimeType = mimeType
        self.crop = crop
    }
}
