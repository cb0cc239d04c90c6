import PhotodropSystem

/// Something a scan could not take and a person may want to know about.
public struct ScanProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A folder could not be listed; nothing below it was scanned.
        case unreadableFolder(SystemError)
        /// A name that is not valid UTF-8; photodrop cannot name it in the catalog.
        case invalidName
        /// A symbolic link; links are never followed (a link could point anywhere on the server).
        case symbolicLink
        /// A FIFO, socket or device node.
        case notRegularFile
    }

    /// The full path (with U+FFFD for invalid bytes in an invalid name).
    public var path: String
    public var kind: Kind

    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .unreadableFolder(let error): return "cannot list \(path): \(error.reason); its files are not scanned"
        case .invalidName: return "skipped \(path): the name is not valid UTF-8; rename it"
        case .symbolicLink: return "skipped \(path): symbolic links are not followed; copy or move the file instead"
        case .notRegularFile: return "skipped \(path): not a regular file"
        }
    }
}
