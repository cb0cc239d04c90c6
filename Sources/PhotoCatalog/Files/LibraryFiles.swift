import PhotodropSystem

/// Making the library's own folders and files with the modes and group of its ``LibraryPermissions``.
///
/// Never open `library.sqlite` (or its `-wal`/`-shm`) here: a process that closes any descriptor of a file loses every
/// POSIX lock it holds on that file, SQLite's included, and another process could then checkpoint the WAL away under
/// the daemon's feet.
enum LibraryFiles {
    /// Sets the folder's mode and group.
    static func apply(_ permissions: LibraryPermissions, toFolder folder: Directory) throws(SystemError) {
        try apply(permissions, descriptor: folder.descriptor, mode: permissions.folderMode, path: folder.path)
    }

    /// Sets mode and (when the policy names one) group of an open file or folder.
    static func apply(_ permissions: LibraryPermissions, descriptor: FileDescriptor, mode: UInt32, path: String)
        throws(SystemError)
    {
        if let group = permissions.groupID { try descriptor.setOwner(nil, group: group, path: path) }
        try descriptor.setPermissions(mode, path: path)
    }

    /// Makes the folder `name` in `parent` with the library's mode and group, unless it exists.
    @discardableResult
    static func makeFolder(_ name: String, in parent: Directory, permissions: LibraryPermissions) throws(SystemError)
        -> Directory
    {
        let created = try parent.makeDirectory(name, mode: permissions.folderMode)
        let folder = try parent.directory(name)
        if created { try apply(permissions, toFolder: folder) }
        return folder
    }

    /// Creates an empty `library.sqlite` with the library's database mode and group, unless it exists.
    static func createDatabaseFile(in library: Directory, permissions: LibraryPermissions) throws(SystemError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try library.open(
                PhotoLibrary.databaseName, flags: [.writeOnly, .create, .exclusive], mode: permissions.databaseMode)
        } catch where error.code == Errno.fileExists {
            return
        }
        try apply(
            permissions, descriptor: descriptor, mode: permissions.databaseMode,
            path: Path.join(library.path, PhotoLibrary.databaseName))
    }

    /// Applies the policy to every folder and file below `library` (an upgrade from a library whose originals were
    /// `0644`, or a new group). Returns whether everything could be changed.
    static func applyEverywhere(_ permissions: LibraryPermissions, library: Directory) -> Bool {
        var complete = true
        if (try? apply(permissions, toFolder: library)) == nil { complete = false }
        for item in DirectoryWalker(root: library, descend: { _, _ in true }) {
            guard case .entry(let entry, let relative, let folder) = item else {
                complete = false
                continue
            }
            switch entry.type {
            case .directory:
                guard let child = try? folder.directory(entry.name),
                    (try? apply(permissions, toFolder: child)) != nil
                else {
                    complete = false
                    continue
                }
            case .regular:
                // By name, never by opening the file: closing any descriptor of library.sqlite would drop every
                // POSIX lock this process holds on it (fcntl locks belong to the process, not the descriptor), and
                // SQLite's locking with it.
                let isOriginal = relative.hasPrefix("originals/")
                let mode = isOriginal ? permissions.originalMode : permissions.databaseMode
                do {
                    if let group = permissions.groupID { try folder.setOwner(of: entry.name, owner: nil, group: group) }
                    try folder.setPermissions(of: entry.name, mode)
                } catch {
                    complete = false
                }
            default:
                continue
            }
        }
        return complete
    }
}
