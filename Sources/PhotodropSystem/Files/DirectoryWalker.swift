import Glibc
/// A folder tree, walked depth-first below an open folder and never through a link: the one walker for the trees
/// photodrop lists in full (`Rejected/` at start and for `status`, the library for its modes, folders given to
/// `probe`). Each entry comes with the open folder it is in, so that the caller acts on it by name below that
/// descriptor. Folders are entered when `descend` says so (default: all but hidden ones); a folder that cannot be
/// opened or read is reported as ``Item/unreadable(relativePath:error:)`` and the walk goes on.
///
/// With `sorted`, each folder's entries come in name order (byte order of their ``FileNameEncoding`` form), a folder's
/// contents right after the folder: what a person reading the output expects.
public struct DirectoryWalker: Sequence {
    public enum Item {
        /// An entry other than `.` and `..`: its path relative to the root, and the folder that holds it.
        case entry(DirectoryStream.Entry, relativePath: String, in: Directory)
        /// A folder (the root: relative path ``) that could not be opened or listed.
        case unreadable(relativePath: String, error: SystemError)
    }

    let root: Directory
    let sorted: Bool
    let descend: (_ entry: DirectoryStream.Entry, _ relativePath: String) -> Bool

    public init(
        root: Directory, sorted: Bool = false,
        descend: @escaping (_ entry: DirectoryStream.Entry, _ relativePath: String) -> Bool = { entry, _ in
            !entry.name.hasPrefix(".")
        }
    ) {
        self.root = root
        self.sorted = sorted
        self.descend = descend
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    public struct Iterator: IteratorProtocol {
        /// A folder being listed: what is left of it, in the order to hand out.
        private struct Level {
            var folder: Directory
            var relativePath: String
            var stream: DirectoryStream?
            var pending: [DirectoryStream.Entry]
        }

        private let walker: DirectoryWalker
        private var levels: [Level] = []
        private var queued: [Item] = []

        init(_ walker: DirectoryWalker) {
            self.walker = walker
            open(walker.root, relativePath: "")
        }

        public mutating func next() -> Item? {
            if !queued.isEmpty { return queued.removeFirst() }
            while !levels.isEmpty {
                let index = levels.count - 1
                let entry: DirectoryStream.Entry?
                if let stream = levels[index].stream {
                    do {
                        entry = try stream.next()
                    } catch {
                        let relative = levels.removeLast().relativePath
                        return .unreadable(relativePath: relative, error: error)
                    }
                } else {
                    entry = levels[index].pending.popLast()
                }
                guard let entry else {
                    levels.removeLast()
                    continue
                }
                let folder = levels[index].folder
                let relative = Path.join(levels[index].relativePath, entry.name)
                if entry.type == .directory && walker.descend(entry, relative) {
                    do {
                        open(try folder.directory(entry.name), relativePath: relative)
                    } catch {
                        queued.append(.unreadable(relativePath: relative, error: error))
                    }
                }
                return .entry(entry, relativePath: relative, in: folder)
            }
            return nil
        }

        private mutating func open(_ folder: Directory, relativePath: String) {
            do {
                let stream = try folder.entries()
                if walker.sorted {
                    var entries: [DirectoryStream.Entry] = []
                    while let entry = try stream.next() { entries.append(entry) }
                    // Reversed, so that popLast hands them out in name order.
                    entries.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
                    levels.append(Level(folder: folder, relativePath: relativePath, stream: nil, pending: entries.reversed()))
                } else {
                    levels.append(Level(folder: folder, relativePath: relativePath, stream: stream, pending: []))
                }
            } catch {
                queued.append(.unreadable(relativePath: relativePath, error: error))
            }
        }
    }
}
