import FoundationEssentials
import PhotodropSystem

/// Marks a live writer: an exclusive `flock` on `Library/locks/<session>.lock`, held as long as the writer is open
/// and released by the kernel when the process dies (also on `kill -9`).
///
/// Placement intents carry their writer's session; at open, a writer reconciles only the intents of sessions whose
/// lock it can take, i.e. of writers that are gone. Two writers (two processes, or two ``PhotoLibrary`` values on one
/// folder) therefore never undo each other's work in flight.
final class WriterSession {
    let id: String
    let locksDirectory: String
    /// The locked file; closing it (when the session goes) releases the lock.
    private let descriptor: FileDescriptor
    private let path: String

    init(locksDirectory: String) throws {
        self.locksDirectory = locksDirectory
        try FileSystem.makeDirectory(locksDirectory)
        while true {
            let id = UUID().uuidString.lowercased()
            let path = locksDirectory + "/" + id + ".lock"
            let descriptor = try FileSystem.open(path, [.readWrite, .create, .exclusive], mode: 0o644)
            _ = try descriptor.lock(.exclusive, wait: true, path: path)
            // A reconciler may have taken and removed the fresh file between open and flock; then start over.
            if let onDisk = try? FileSystem.status(atPath: path), let held = try? descriptor.status(path: path),
                onDisk.node.inode == held.node.inode, onDisk.node.device == held.node.device
            {
                self.id = id
                self.path = path
                self.descriptor = descriptor
                return
            }
            // Not ours any more: the descriptor closes as it goes out of scope, and the loop starts over.
        }
    }

    deinit {
        // Unlinked first, so that no other writer can take the lock of a file about to vanish; the descriptor (and
        // the lock) goes after this.
        try? FileSystem.remove(path)
    }

    /// Whether the writer of `session` is gone: its lock file is missing or its lock can be taken. A taken lock file
    /// is removed.
    static func isDead(session: String, locksDirectory: String) -> Bool {
        let path = locksDirectory + "/" + session + ".lock"
        let descriptor: FileDescriptor
        do { descriptor = try FileSystem.open(path, .readWrite) } catch {
            return error.code == Errno.noSuchFileOrDirectory
        }
        guard (try? descriptor.lock(.exclusive, wait: false, path: path)) == true else { return false }
        try? FileSystem.remove(path)
        return true
    }

    /// Removes lock files of writers that are gone (leftovers of crashed processes).
    static func removeStaleLocks(in locksDirectory: String, except own: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: locksDirectory) else { return }
        for name in names where name.hasSuffix(".lock") && name != own + ".lock" {
            _ = isDead(session: String(name.dropLast(5)), locksDirectory: locksDirectory)
        }
    }
}
