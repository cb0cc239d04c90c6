/// photodrop's version: a semantic version (MAJOR.MINOR.PATCH: MAJOR for a change that breaks the command line's or
/// the API's contract, or the library's format without a migration; MINOR for what is added; PATCH for fixes), set
/// here by hand at a release, and the commit the build was made from when the build knew it (``commit``, written by
/// the BuildStamp plugin).
public enum PhotodropVersion {
    public static let semantic = "0.31.0"

    /// `0.31.0 (commit 1a2b3c4d5e6f)`, or the version alone.
    public static var description: String {
        commit.map { "\(semantic) (commit \($0))" } ?? semantic
    }
}
