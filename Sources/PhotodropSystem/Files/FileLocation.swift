import Glibc
/// A file named relative to an open folder: how photodrop hands a file from one stage to the next (a staged drop
/// below the inbox's claim folder, a file below an import root), so that nothing resolves its path again from the
/// top and no link swapped in on the way can redirect it.
public struct FileLocation: Sendable {
    /// The open folder the file is named against.
    public let directory: Directory
    /// The file's path below ``directory`` (`IMG_1.jpg` or `Trip/IMG_1.jpg`), in ``FileNameEncoding`` form.
    public let relativePath: String

    /// The file `relativePath` below `directory`.
    public init(directory: Directory, relativePath: String) {
        self.directory = directory
        self.relativePath = relativePath
    }

    /// The file at `path`: its folder is opened as named (links followed: a path a person or caller gave), the file
    /// itself is never a link.
    public init(path: String) throws(SystemError) {
        let (folder, name) = Path.split(path)
        self.init(directory: try Directory.open(atPath: folder.isEmpty ? "." : folder), relativePath: name)
    }

    /// The path for messages and records.
    public var path: String { Path.join(directory.path, relativePath) }

    /// The file's last component.
    public var name: String { Path.lastComponent(of: relativePath) }

    /// Opens the file (`O_NOFOLLOW | O_CLOEXEC` added).
    public func open(flags: OpenFlags) throws(SystemError) -> FileDescriptor {
        try directory.open(relativePath, flags: flags)
    }

    /// The folder that holds the file, and the file's name in it.
    public func parent() throws(SystemError) -> (directory: Directory, name: String) {
        try directory.parent(of: relativePath)
    }

    /// `fstatat` without following a link; nil when nothing is there.
    public func status() throws(SystemError) -> FileStatus? {
        let (folder, name) = try parent()
        return try folder.status(name)
    }

    /// Removes the file; a missing one is fine.
    public func remove() throws(SystemError) {
        let (folder, name) = try parent()
        try folder.remove(name)
    }
}
