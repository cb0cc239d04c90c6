import FoundationEssentials
import PhotodropSystem

/// The titles an album may be given from outside (the API, the command line): readable text that can also name its
/// inbox folder — not empty, at most 255 bytes, no control or bidirectional formatting characters, no `/` (it
/// separates inbox folders), and more than dots and spaces.
public enum AlbumTitle {
    /// The title in NFC, surrounding spaces removed, or why it cannot be one.
    public static func validated(_ raw: String) -> Result<String, UploadNameProblem> {
        let trimmed = raw.trimmingWhitespace()
        let title = trimmed.utf8.allSatisfy({ $0 < 0x80 }) ? trimmed : trimmed.canonicallyComposed
        if title.isEmpty { return .failure(UploadNameProblem("the title must not be blank")) }
        if title == "." || title == ".." { return .failure(UploadNameProblem("'\(title)' cannot be a title")) }
        // Dots and spaces alone name no folder anyone can tell apart (`...`, `. .`).
        if title.unicodeScalars.allSatisfy({ $0 == "." || $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }) {
            return .failure(UploadNameProblem("'\(title)' cannot be a title: it needs a character besides dots and spaces"))
        }
        if let problem = UploadName.unsafeCharacters(in: title, what: "title") { return .failure(problem) }
        if title.utf8.contains(UInt8(ascii: "/")) {
            return .failure(UploadNameProblem("the title contains '/', which separates inbox folders"))
        }
        if title.unicodeScalars.contains("\u{FFFD}") { return .failure(UploadNameProblem("the title is not valid UTF-8")) }
        if title.utf8.count > 255 {
            return .failure(UploadNameProblem("the title is \(title.utf8.count) bytes long; at most 255 are allowed"))
        }
        return .success(title)
    }
}
