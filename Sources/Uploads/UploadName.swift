import PhotodropSystem
import FoundationEssentials

/// The rules for a file name given by an uploader, and for an album title used as the name of a new inbox folder:
/// one path component, in Unicode NFC (a decomposed name, as macOS sends, is composed), at most 255 bytes, not
/// hidden (a leading dot: the watcher skips such names), not `.` or `..`, no NUL, no `/`, no control or bidirectional
/// formatting characters, no percent-encoded slash or NUL left over from the URL, valid UTF-8.
public enum UploadName {
    /// The name in NFC, or why it cannot be one.
    public static func validated(_ raw: String) -> Result<String, UploadNameProblem> {
        let name = raw.utf8.allSatisfy({ $0 < 0x80 }) ? raw : raw.canonicallyComposed
        if name.isEmpty { return .failure(UploadNameProblem("the name is empty")) }
        if name == "." || name == ".." { return .failure(UploadNameProblem("'\(name)' is not a file name")) }
        if name.utf8.contains(0) { return .failure(UploadNameProblem("the name contains a NUL byte")) }
        if name.utf8.contains(UInt8(ascii: "/")) {
            return .failure(UploadNameProblem("the name contains '/': it must be one path component"))
        }
        let lowered = name.lowercased()
        if lowered.contains("%2f") || lowered.contains("%00") {
            return .failure(UploadNameProblem("the name contains an encoded '/' or NUL: it must be one path component"))
        }
        if name.hasPrefix(".") { return .failure(UploadNameProblem("a name starting with '.' is hidden: photodrop never takes it")) }
        if let problem = unsafeCharacters(in: name, what: "name") { return .failure(problem) }
        if name.unicodeScalars.contains("\u{FFFD}") {
            return .failure(UploadNameProblem("the name is not valid UTF-8"))
        }
        if name.utf8.count > 255 {
            return .failure(UploadNameProblem("the name is \(name.utf8.count) bytes long; at most 255 are allowed"))
        }
        return .success(name)
    }

    /// Characters that have no place in a name someone reads: control characters (C0, DEL, C1), and the bidirectional
    /// formatting characters that make a name display as another (`photo\u{202E}gpj.exe` shows as `photoexe.jpg`).
    static func unsafeCharacters(in text: String, what: String) -> UploadNameProblem? {
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00..<0x20, 0x7F, 0x80..<0xA0:
                return UploadNameProblem("the \(what) contains control characters")
            case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                return UploadNameProblem(
                    "the \(what) contains a bidirectional formatting character (U+\(String(scalar.value, radix: 16, uppercase: true))), "
                        + "which makes it display as something else")
            default: continue
            }
        }
        return nil
    }
}

/// Why a name cannot be an uploaded file's (or a new inbox folder's).
public struct UploadNameProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
