/// What happens to a RAW and the JPEG/HEIC a camera wrote beside it (config `rawAndJpeg`).
public enum RawAndJpegPolicy: String, Sendable, Hashable, CaseIterable {
    /// One asset: the JPEG/HEIC is its photo, the RAW its alternate.
    case pair
    /// Two assets, as other files.
    case separate
}
