/// How a picture is fitted to a target size (`PHImageContentMode`).
public enum ContentMode: Sendable, Equatable {
    /// All of the picture, inside the target size.
    case aspectFit
    /// The target size covered, the picture cropped to its centre.
    case aspectFill
}
