/// The check a program calls before it saves a file into the library: PhotoKit's seed calls UIKit's
/// `UIVideoAtPathIsCompatibleWithSavedPhotosAlbum(_:)` before saving a movie; this is its counterpart, by content (as
/// the daemon judges drops), and for photos too.
public enum SavedPhotosAlbumCheck {
    /// Whether the file at `path` is a movie that Apple devices can play (`UIVideoAtPathIsCompatibleWithSavedPhotosAlbum`):
    /// false for an `hev1`, VP9 or Matroska movie, for anything that is not a movie, and for a file that cannot be read.
    public static func isVideoCompatible(atPath path: String, policy: VideoPolicy = .appleDefault) -> Bool {
        guard let result = try? check(atPath: path, policy: policy) else { return false }
        return result.kind == .video
    }

    /// What saving the file at `path` would store: a photo, GIF or video with its metadata (capture date, size,
    /// location …), or a rejection whose message says what to do, the one photodrop gives everywhere else.
    ///
    /// - Throws: ``ProbeError`` when the file cannot be read at all (missing, unreadable, not a regular file).
    public static func check(atPath path: String, policy: VideoPolicy = .appleDefault) throws(ProbeError) -> ProbeResult {
        try MediaProber(policy: policy).probe(path: path)
    }
}
