import FoundationEssentials
import PhotodropSystem
import PhotodropConfiguration

/// Counts for `status`: files waiting in the inbox and files in the rejected folder, with folders that could not be
/// read.
public enum FolderCensus {
    public struct Count: Sendable {
        public var files = 0
        public var bytes: Int64 = 0
        /// Folders that could not be read: (path, what went wrong).
        public var problems: [(path: String, message: String)] = []
        /// Entries that are never taken: links, FIFOs, sockets, devices (path, why).
        var untakeable: [(path: String, message: String)] = []
        public var exists = true
    }

    /// The files the daemon would take from the inbox (the scanner's rules: no temp names, no dot entries, no
    /// `ignore` patterns), and what the scanner could not read.
    public static func inbox(_ path: String, ignore: IgnoreRules) -> Count {
        var count = Count()
        guard folderExists(path, &count) else { return count }
        for item in InboxScanner(root: path, ignore: ignore) {
            switch item {
            case .file: count.files += 1
            case .problem(let problem):
                if case .unreadableFolder = problem.kind {
                    count.problems.append((problem.path, problem.description))
                } else {
                    count.untakeable.append((problem.path, problem.description))
                }
            }
        }
        return count
    }

    /// The rejected files under `path` (each `<name>` beside its `<name>.reason.json`; the reason files, hidden
    /// entries and pending reasons are not counted) and their size.
    public static func rejected(_ path: String) -> Count {
        var count = Count()
        guard folderExists(path, &count) else { return count }
        let root: Directory
        do {
            root = try Directory.open(atPath: path)
        } catch {
            count.problems.append((path, "cannot list \(path): \(error.reason)"))
            return count
        }
        for item in DirectoryWalker(root: root) {
            switch item {
            case .unreadable(let relative, let error):
                let folder = Path.join(path, relative)
                count.problems.append((folder, "cannot list \(folder): \(error.reason)"))
            case .entry(let entry, _, let folder):
                guard entry.type == .regular, !entry.name.hasPrefix(".") else { continue }
                let isReason =
                    entry.name.hasSuffix(".reason.json") && folder.exists(String(entry.name.dropLast(12)))
                if !isReason, let info = (try? folder.status(entry.name)) ?? nil {
                    count.files += 1
                    count.bytes += Int64(info.size)
                }
            }
        }
        return count
    }

    private static func folderExists(_ path: String, _ count: inout Count) -> Bool {
        let info: FileStatus
        do throws(SystemError) { info = try FileSystem.status(atPath: path) } catch {
            count.exists = false
            if error.code != Errno.noSuchFileOrDirectory {
                count.problems.append((path, "cannot read \(path): \(error.reason)"))
            }
            return false
        }
        guard info.isDirectory else {
            count.exists = false
            count.problems.append((path, "\(path) is not a folder"))
            return false
        }
        return true
    }
}
