/// The watcher's map between inotify watch descriptors and folders (relative to the inbox; `""` is the inbox).
///
/// About 100 bytes per watched folder: two dictionary entries and the relative path.
struct WatchTable: Sendable {
    private(set) var pathByWatch: [Int32: String] = [:]
    private(set) var watchByPath: [String: Int32] = [:]

    var count: Int { pathByWatch.count }

    func path(for watch: Int32) -> String? { pathByWatch[watch] }

    func watch(for path: String) -> Int32? { watchByPath[path] }

    /// Records a watch. The kernel returns an existing descriptor when the same folder (inode) is added again, for
    /// example after a rename we have not seen yet; the old path mapping is dropped then.
    mutating func insert(watch: Int32, path: String) {
        if let old = pathByWatch[watch], old != path { watchByPath.removeValue(forKey: old) }
        if let oldWatch = watchByPath[path], oldWatch != watch { pathByWatch.removeValue(forKey: oldWatch) }
        pathByWatch[watch] = path
        watchByPath[path] = watch
    }

    /// Forgets one descriptor (after `IN_IGNORED`); returns its path.
    @discardableResult
    mutating func remove(watch: Int32) -> String? {
        guard let path = pathByWatch.removeValue(forKey: watch) else { return nil }
        if watchByPath[path] == watch { watchByPath.removeValue(forKey: path) }
        return path
    }

    /// Forgets the folder at `path` and every folder below it; returns their descriptors (to `inotify_rm_watch`).
    mutating func removeSubtree(_ path: String) -> [Int32] {
        if path.isEmpty {
            let all = Array(pathByWatch.keys)
            pathByWatch.removeAll()
            watchByPath.removeAll()
            return all
        }
        let prefix = path + "/"
        var removed: [Int32] = []
        for (watch, watchedPath) in pathByWatch where watchedPath == path || watchedPath.hasPrefix(prefix) {
            removed.append(watch)
        }
        for watch in removed { remove(watch: watch) }
        return removed
    }
}
