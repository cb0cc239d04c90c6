import FoundationEssentials
import PhotodropSystem

/// The folders of config.json that a command writes (the library, the inbox, `Rejected/`), checked before it creates
/// or writes anything, so that a wrong path fails with a message instead of quietly becoming a new tree:
///
/// - a folder that does not exist is created only when its parent does (photodrop makes the last folder of a path,
///   never a chain: `"library": "/srv/phtos/Library"` with a typo is refused, not made);
/// - a folder on a file system that `/etc/fstab` mounts, while nothing is mounted there, is refused: the library's
///   disk is not there, and writing would fill the root disk with a new, empty library;
/// - the inbox (or, when missing, its parent; likewise the library's parent) must be writable by this user, and the
///   message says which user. (A library or `Rejected/` that cannot be written is a health problem of a running
///   daemon, whose drops wait.)
public enum ConfiguredFolders {
    /// A configured folder.
    public struct Folder: Sendable, Hashable {
        /// The config key (`library`, `inbox`, `rejected`).
        public var key: String
        /// What it is, for messages ("the library folder").
        public var role: String
        /// The absolute path.
        public var path: String
    }

    /// The folders `watch` writes: library, inbox and `Rejected/`.
    public static func forWatch(_ config: IngestConfig) -> [Folder] {
        [
            Folder(key: "library", role: "the library folder", path: config.library),
            Folder(key: "inbox", role: "the inbox", path: config.inbox),
            Folder(key: "rejected", role: "the folder for rejected files", path: config.rejected),
        ]
    }

    /// The folders `import` writes: the library, and `Rejected/` when it moves rejected files there (`--move`).
    public static func forImport(_ config: IngestConfig, movesRejected: Bool) -> [Folder] {
        forWatch(config).filter { $0.key == "library" || ($0.key == "rejected" && movesRejected) }
    }

    /// Checks `folders` for `config`; returns those that do not exist yet (each will be created as the last folder of
    /// its path), or throws a refusal that names the folder, its config key, and what to do.
    public static func check(_ folders: [Folder], config: IngestConfig, mounts: MountTable = .current())
        throws(LibraryLocation.Refusal) -> [Folder]
    {
        var missing: [Folder] = []
        let file = config.sourceFile ?? "the built-in defaults (no config.json)"
        for folder in folders {
            if let mountPoint = mounts.unmountedMountPoint(containing: folder.path) {
                throw LibraryLocation.Refusal(
                    description:
                        "\(folder.role) '\(folder.path)' (\"\(folder.key)\" in \(file)) lies on \(mountPoint), which "
                        + "/etc/fstab mounts, but nothing is mounted there now. Nothing was created or written. Mount "
                        + "it ('mount \(mountPoint)') and start again")
            }
            let looked = Result { () throws(SystemError) in try FileSystem.status(atPath: folder.path) }
            if case .success(let info) = looked {
                guard info.isDirectory else {
                    throw LibraryLocation.Refusal(
                        description:
                            "\(folder.role) '\(folder.path)' (\"\(folder.key)\" in \(file)) is not a folder; correct the "
                            + "path")
                }
                // The inbox must be writable from the start: files are moved out of it and the claim journal lives
                // in it. A library or Rejected/ that cannot be written is reported as a health problem while the
                // daemon runs (drops wait until it can be written again).
                if folder.key == "inbox", !isWritable(folder.path) {
                    throw LibraryLocation.Refusal(
                        description:
                            "\(folder.role) '\(folder.path)' (\"\(folder.key)\" in \(file)) is not writable by the user "
                            + "photodrop runs as (\(userDescription)). \(whyWritable(folder)) Give that user write "
                            + "access (chown, chmod g+w with the user in the folder's group, or setfacl -m u:USER:rwx), "
                            + "or run photodrop as a user who has it. Nothing was created or written")
                }
                continue
            }
            if case .failure(let error) = looked, error.code != Errno.noSuchFileOrDirectory {
                throw LibraryLocation.Refusal(
                    description:
                        "\(folder.role) '\(folder.path)' (\"\(folder.key)\" in \(file)) cannot be looked at: "
                        + "\(error.reason)")
            }
            let parent = Path.parent(of: folder.path)
            guard let parentInfo = try? FileSystem.status(atPath: parent), parentInfo.isDirectory else {
                throw LibraryLocation.Refusal(
                    description:
                        "\(folder.role) '\(folder.path)' (\"\(folder.key)\" in \(file)) does not exist, and neither does "
                        + "the folder it would be made in, '\(parent)'. photodrop creates only the last folder of a "
                        + "configured path, so that a typo or a disk that is not mounted never becomes a new tree: "
                        + "correct \"\(folder.key)\", or create '\(parent)' first (mkdir -p '\(parent)')")
            }
            guard folder.key == "rejected" || isWritable(parent) else {
                throw LibraryLocation.Refusal(
                    description:
                        "\(folder.role) '\(folder.path)' (\"\(folder.key)\" in \(file)) does not exist, and the user "
                        + "photodrop runs as (\(userDescription)) cannot create it in '\(parent)'. Create it and give "
                        + "that user write access, or run photodrop as a user who may. Nothing was created or written")
            }
            missing.append(folder)
        }
        return missing
    }

    /// Why a folder must be writable, for the refusal.
    private static func whyWritable(_ folder: Folder) -> String {
        switch folder.key {
        case "inbox": return "photodrop moves dropped files out of it and keeps its claim journal in it."
        case "rejected": return "photodrop moves the files it rejects into it."
        default: return "photodrop writes the catalog and the originals there."
        }
    }

    /// Whether this process may create and rename entries in `path` (`faccessat` with its effective ids).
    static func isWritable(_ path: String) -> Bool {
        (try? FileSystem.checkAccess(path, [.write, .execute], effectiveIDs: true)) != nil
    }

    /// `name (uid N)` of the effective user.
    static var userDescription: String {
        let uid = SystemProcess.effectiveUserID
        if let name = UserDatabase.userName(of: uid) { return "\(name), uid \(uid)" }
        return "uid \(uid)"
    }
}
