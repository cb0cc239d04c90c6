import PhotodropSystem
import PhotodropConfiguration

/// Walks an inbox (or an import source) and yields every file that may be taken, with its album.
///
/// - Reads folders with `opendir`/`readdir` and trusts `d_type`: no `stat` per file.
/// - Skips hidden folders and files, temp names and config `ignore` patterns (``IgnoreRules``).
/// - Never follows symbolic links; reports them, unreadable folders and non-UTF-8 names as ``ScanProblem``s and
///   goes on.
/// - Streams: it keeps one folder open and a queue of folders still to visit (breadth first), never a list of
///   files, so 100,000 files cost no more memory than 10.
/// - A root that is a regular file yields just that file (`photodrop import photo.jpg`).
///
/// Iterate it as a `Sequence` (single pass; each `makeIterator()` starts a new walk).
struct InboxScanner: Sequence {
    /// One thing the walk found.
    public enum Item: Sendable, Hashable {
        case file(CandidateFile)
        case problem(ScanProblem)
    }

    /// The scanned root (absolute, or relative to the working directory).
    public let root: String
    /// How files get their album.
    public let albums: AlbumRule
    /// Names to skip.
    public let ignore: IgnoreRules
    /// Only the folder at this path relative to `root` is walked (`""` = everything). Albums are still decided
    /// relative to `root`, so a rescan of `Trip/2024` yields album `Trip`.
    let startingAt: String

    public init(
        root: String, albums: AlbumRule = .firstLevelFolder, ignore: IgnoreRules = IgnoreRules(),
        startingAt: String = ""
    ) {
        self.root = root
        self.albums = albums
        self.ignore = ignore
        self.startingAt = startingAt
    }

    public func makeIterator() -> Iterator {
        Iterator(scanner: self)
    }

    /// The walk's state: one open folder and the relative paths of folders still to visit.
    public final class Iterator: IteratorProtocol {
        private let scanner: InboxScanner
        private var started = false
        /// The root, opened once (a link there is followed); every folder below is opened through it.
        private var rootDirectory: Directory?
        private var current: DirectoryStream?
        private var currentRelative = ""
        private var pending: [String] = []
        private var pendingHead = 0

        init(scanner: InboxScanner) {
            self.scanner = scanner
        }

        public func next() -> Item? {
            if !started {
                started = true
                if let item = start() { return item }
            }
            while true {
                if current == nil {
                    guard pendingHead < pending.count else {
                        pending.removeAll()
                        pendingHead = 0
                        return nil
                    }
                    let relative = pending[pendingHead]
                    pendingHead += 1
                    if pendingHead > 1024 && pendingHead * 2 > pending.count {
                        pending.removeFirst(pendingHead)
                        pendingHead = 0
                    }
                    let path = Path.join(scanner.root, relative)
                    guard let rootDirectory else { continue }
                    do {
                        current = try rootDirectory.directory(relative).entries()
                        currentRelative = relative
                    } catch {
                        return .problem(ScanProblem(path: path, kind: .unreadableFolder(error)))
                    }
                }
                guard let stream = current else { continue }
                let entry: DirectoryStream.Entry?
                do {
                    entry = try stream.next()
                } catch {
                    current = nil
                    return .problem(ScanProblem(path: stream.path, kind: .unreadableFolder(error)))
                }
                guard let entry else {
                    current = nil
                    continue
                }
                let relative = currentRelative.isEmpty ? entry.name : "\(currentRelative)/\(entry.name)"
                if entry.name.utf8.first == UInt8(ascii: ".") { continue }  // hidden: never reported
                switch entry.type {
                case .directory:
                    if !scanner.ignore.skipsDirectory(named: entry.name, relativePath: relative) {
                        pending.append(relative)
                    }
                case .regular:
                    if scanner.ignore.skipsFile(named: entry.name, relativePath: relative) { continue }
                    return .file(candidate(relative))
                case .symbolicLink:
                    if scanner.ignore.skipsFile(named: entry.name, relativePath: relative) { continue }
                    return .problem(ScanProblem(path: Path.join(scanner.root, relative), kind: .symbolicLink))
                case .other:
                    if scanner.ignore.skipsFile(named: entry.name, relativePath: relative) { continue }
                    return .problem(
                        ScanProblem(path: Path.join(scanner.root, relative), kind: .notRegularFile))
                }
            }
        }

        /// Decides what the root is; a regular file is the whole result.
        private func start() -> Item? {
            let startPath = Path.join(scanner.root, scanner.startingAt)
            // The root was named by a person (or the config): a link there is followed; links inside are not.
            let info: FileStatus
            do throws(SystemError) {
                info = try FileSystem.status(atEncodedPath: scanner.root)
            } catch {
                return .problem(ScanProblem(path: startPath, kind: .unreadableFolder(error)))
            }
            switch info.kind {
            case .directory:
                do {
                    rootDirectory = try Directory.open(atPath: scanner.root)
                    if !scanner.startingAt.isEmpty {
                        // A rescan of one folder: it must still be a folder below the root, not a link.
                        guard let found = try rootDirectory?.directory(scanner.startingAt) else { return nil }
                        _ = found
                    }
                } catch {
                    return .problem(ScanProblem(path: startPath, kind: .unreadableFolder(error)))
                }
                pending.append(scanner.startingAt)
                return nil
            case .regular where scanner.startingAt.isEmpty:
                let name = Path.lastComponent(of: scanner.root)
                let album: String?
                if case .fixed(let fixed) = scanner.albums { album = fixed } else { album = nil }
                do {
                    return .file(
                        CandidateFile(
                            path: scanner.root, relativePath: name, album: album,
                            location: try FileLocation(path: scanner.root)))
                } catch {
                    return .problem(ScanProblem(path: scanner.root, kind: .unreadableFolder(error)))
                }
            default:
                return .problem(ScanProblem(path: startPath, kind: .notRegularFile))
            }
        }

        private var lastFolder: Substring = ""
        private var lastTitle: String?

        private func candidate(_ relative: String) -> CandidateFile {
            let album: String?
            switch scanner.albums {
            case .folders(let mode):
                // Files come folder by folder: the key is worked out once per folder.
                if let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/")) {
                    let folder = relative[..<slash]
                    if folder != lastFolder || lastTitle == nil {
                        lastFolder = folder
                        lastTitle = AlbumRule.album(forFolder: folder, mode: mode)
                    }
                    album = lastTitle
                } else {
                    album = nil
                }
            case .fixed(let fixed): album = fixed
            }
            return CandidateFile(
                path: Path.join(scanner.root, relative), relativePath: relative, album: album,
                location: rootDirectory.map { FileLocation(directory: $0, relativePath: relative) })
        }
    }
}
