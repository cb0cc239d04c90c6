import FoundationEssentials
import PhotodropSystem

/// The file work of one ``LibraryBackup``: each stored file hard-linked from the previous backup or copied from the
/// library, then the copies read back. Not `Sendable`: one backup's own state, used on one thread.
final class FileTransfer {
    /// What a backup's catalog records of a file.
    struct Recorded: Sendable, Hashable {
        var byteCount: Int64
        var sha256: String
    }

    /// What happened to one file.
    enum Outcome {
        /// Hard-linked from the previous backup.
        case linked
        /// Copied from the library, with the recorded bytes.
        case copied
        /// Not in the library (any more).
        case vanished
        /// Copied, but the library's file has other bytes than recorded: its SHA-256 and size.
        case damaged(sha256: String, byteCount: Int64)
        /// Reading, writing or linking failed.
        case failed(SystemError)
    }

    private let library: Directory
    private let target: Directory
    private let previous: Directory?
    private let previousFiles: [String: Recorded]
    private let permissions: LibraryPermissions
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
    private var targetFolders: [String: Directory] = [:]
    private var previousFolders: [String: Directory?] = [:]
    /// Whether the file system refused a hard link once (another file system, or no links): then everything is copied.
    private var linksRefused = false

    private(set) var linkedFiles = 0
    private(set) var linkedBytes: Int64 = 0
    /// Files copied, with the SHA-256 they must read back with.
    private(set) var copied: [(path: String, sha256: String)] = []
    private(set) var copiedBytes: Int64 = 0

    init(
        library: Directory, target: Directory, previous: Directory?, previousFiles: [String: Recorded],
        permissions: LibraryPermissions
    ) {
        self.library = library
        self.target = target
        self.previous = previous
        self.previousFiles = previousFiles
        self.permissions = permissions
    }

    deinit { buffer.deallocate() }

    /// Links or copies `file` into the backup.
    func transfer(_ file: CatalogSnapshot.StoredFile) -> Outcome {
        let (folder, name) = Path.split(file.path)
        let destination: Directory
        do { destination = try targetFolder(folder) } catch { return .failed(error) }
        if link(file, folder: folder, name: name, into: destination) { return .linked }
        return copy(file, name: name, into: destination)
    }

    /// Removes a copied file again (a derivative that is left out).
    func discard(_ path: String) {
        let (folder, name) = Path.split(path)
        try? targetFolders[folder]?.remove(name)
        copied.removeAll { $0.path == path }
    }

    /// fsyncs every folder files were made in, then the backup's own folders. Returns the first failure.
    func syncFolders() -> SystemError? {
        do throws(SystemError) {
            for folder in targetFolders.keys.sorted(by: >) { try targetFolders[folder]?.sync() }
            try target.sync()
            return nil
        } catch {
            return error
        }
    }

    /// Reads every copied file back from the disk (its cached pages are dropped first) and compares its SHA-256.
    func readBack() -> [BackupProblem] {
        var problems: [BackupProblem] = []
        for (path, sha256) in copied {
            let fullPath = Path.join(target.path, path)
            do {
                let descriptor = try target.open(path, flags: [.readOnly, .noControllingTerminal, .nonBlocking])
                descriptor.advise(.dontNeed)
                let (digest, _) = try SHA256.digest(ofFile: descriptor, path: fullPath, buffer: buffer)
                if digest.hex != sha256 {
                    problems.append(
                        BackupProblem(
                            kind: .copyDamaged, path: fullPath,
                            message: "'\(fullPath)' reads back with SHA-256 \(digest.hex), but \(sha256) was written: "
                                + "the backup disk returns other bytes than it was given. Check the disk (dmesg, "
                                + "smartctl), then back up again."))
                }
            } catch {
                problems.append(
                    BackupProblem(
                        kind: .copyDamaged, path: fullPath,
                        message:
                            "'\(fullPath)' cannot be read back: \(error). Check the backup disk, then back up again."
                    ))
            }
        }
        return problems
    }

    // MARK: Linking

    /// Hard-links the previous backup's file when the previous backup recorded the same size and SHA-256 and its file
    /// is a regular file of that size. False when the file must be copied.
    private func link(_ file: CatalogSnapshot.StoredFile, folder: String, name: String, into destination: Directory)
        -> Bool
    {
        guard !linksRefused, previousFiles[file.path] == Recorded(byteCount: file.byteCount, sha256: file.sha256),
            let source = previousFolder(folder),
            let info = try? source.status(name), info.isRegularFile,
            Int64(info.size) == file.byteCount
        else { return false }
        do {
            guard try source.link(name, to: destination, as: name) else { return false }
        } catch {
            // Another file system, too many links to one file, or links not allowed (protected_hardlinks): copy.
            if [Errno.improperLink, Errno.tooManyLinks, Errno.notPermitted, Errno.permissionDenied, Errno.notSupported].contains(error.code) { linksRefused = error.code != Errno.tooManyLinks }
            return false
        }
        linkedFiles += 1
        linkedBytes += file.byteCount
        return true
    }

    private func previousFolder(_ folder: String) -> Directory? {
        guard let previous else { return nil }
        if let cached = previousFolders[folder] { return cached }
        let opened = try? previous.directory(folder)
        previousFolders[folder] = opened
        return opened
    }

    private func targetFolder(_ folder: String) throws(SystemError) -> Directory {
        if let cached = targetFolders[folder] { return cached }
        let opened = try target.directory(folder, creating: true, mode: permissions.folderMode)
        targetFolders[folder] = opened
        return opened
    }

    // MARK: Copying

    /// Copies the library's file into `destination`, hashing the bytes on their way; fsyncs the copy and gives it the
    /// original's modification time.
    private func copy(_ file: CatalogSnapshot.StoredFile, name: String, into destination: Directory) -> Outcome {
        let sourcePath = Path.join(library.path, file.path)
        let targetPath = Path.join(destination.path, name)
        let input: FileDescriptor
        do {
            input = try library.open(file.path, flags: [.readOnly, .noControllingTerminal, .nonBlocking])
        } catch {
            return error.code == Errno.noSuchFileOrDirectory || error.code == Errno.notDirectory ? .vanished : .failed(error)
        }
        do {
            let info = try input.status(path: sourcePath)
            guard info.isRegularFile else {
                return .failed(SystemError(code: Errno.invalidArgument, call: "open (not a regular file)", path: sourcePath))
            }
            input.advise(.sequential)
            // Derivatives get the originals' mode in the library too.
            let output = try destination.open(
                name, flags: [.writeOnly, .create, .exclusive, .noControllingTerminal], mode: permissions.originalMode)
            var hasher = try SHA256()
            var count: Int64 = 0
            while true {
                let read = try input.read(into: buffer, path: sourcePath)
                if read == 0 { break }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<read])
                try hasher.update(chunk)
                try output.writeAll(chunk, path: targetPath)
                count += Int64(read)
            }
            try output.sync(path: targetPath)
            try? output.setTimes(access: info.access, modification: info.modification)
            let digest = try hasher.finalize().hex
            copiedBytes += count
            copied.append((file.path, digest))
            guard digest == file.sha256 && count == file.byteCount else {
                return .damaged(sha256: digest, byteCount: count)
            }
            return .copied
        } catch let error as SystemError {
            try? destination.remove(name)
            return .failed(error)
        } catch {
            try? destination.remove(name)
            return .failed(SystemError(code: Errno.ioError, call: "SHA-256 (\(error))", path: sourcePath))
        }
    }
}
