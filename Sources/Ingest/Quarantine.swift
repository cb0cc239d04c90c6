import PhotodropSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why a file was rejected, as written into `<name>.reason.json`.
public struct RejectionReason: Sendable, Hashable {
    /// A stable code: `corrupt`, `empty`, `unsupportedVideo`, `unsupportedType`, …
    public var code: String
    /// What is wrong and what a person can do, e.g. "HEVC tagged hev1: remux with -tag:v hvc1".
    public var message: String
    /// The MIME type libmagic reported, if any.
    public var mime: String?

    public init(code: String, message: String, mime: String?) {
        self.code = code
        self.message = message
        self.mime = mime
    }
}

/// Where a rejected file went.
public struct RejectedFile: Sendable, Hashable {
    /// The rejected file, `Rejected/<Album>/<name>` (with a ` (2)`-style suffix on a name clash).
    public var path: String
    /// Its `<name>.reason.json`.
    public var reasonPath: String
}

/// A quarantine operation that failed; the file is still where it was (or, for a failure after the move, in
/// `Rejected/` with its reason pending for ``Quarantine/recover()``).
public struct QuarantineError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var cause: SystemError
    /// Where the file is if it was moved before the failure (only its reason file is missing then; ``Quarantine/recover()``
    /// puts it in place); nil when the file was not moved.
    public var movedTo: String?

    public var description: String {
        if let movedTo {
            return "\(file) was moved to \(movedTo), but its reason file could not be put in place: \(cause)"
        }
        return "cannot move \(file) to the rejected files: \(cause). The file stays where it is."
    }
}

/// Moves rejected files to `Rejected/<Album>/<name>` beside `<name>.reason.json`, never overwriting anything.
///
/// Crash-safe order: (1) the reason is written and synced to a hidden `.<name>.reason.json.pending`; (2) the file is
/// moved to `<name>` without replacing (the commit point); (3) the pending reason is renamed to
/// `<name>.reason.json` and the folder synced. A crash before (2) leaves the file where it was plus a stale pending
/// reason; after (2), the file is in `Rejected/` and ``recover()`` (run at start) completes its reason. A name that
/// is taken — by a file, a reason or a pending reason — gets a suffix: `IMG_1 (2).jpg`, `IMG_1 (3).jpg`, …
public struct Quarantine: Sendable {
    /// The `rejected` folder of the configuration.
    public let root: String

    static let pendingSuffix = ".reason.json.pending"
    static let reasonSuffix = ".reason.json"

    public init(root: String) {
        self.root = root
    }

    /// Moves `file` into quarantine.
    ///
    /// - Parameters:
    ///   - file: the file to move (e.g. the claimed file).
    ///   - album: the album it was dropped for; nil puts it directly into `Rejected/`.
    ///   - name: the name to use in `Rejected/`; default: `file`'s own name.
    ///   - reason: code, message and MIME type.
    ///   - source: where the file came from, for people (`Inbox/Trip/IMG_1.MOV`).
    ///   - time: when it was rejected.
    public func reject(
        _ file: String, album: String?, name: String? = nil, reason: RejectionReason, source: String,
        at time: UTCTimestamp = .now()
    ) throws(QuarantineError) -> RejectedFile {
        let folder = album.map { PathResolution.join(root, Quarantine.folderName(forAlbum: $0)) } ?? root
        do {
            try Quarantine.makeDirectories(folder)
        } catch {
            throw QuarantineError(file: file, cause: error, movedTo: nil)
        }
        let baseName = Quarantine.safeFileName(name ?? PathResolution.lastComponent(of: file))
        let json = Quarantine.reasonJSON(reason, source: source, time: time)
        for attempt in 1...10_000 {
            let candidate = attempt == 1 ? baseName : Quarantine.suffixed(baseName, attempt)
            let target = PathResolution.join(folder, candidate)
            let reasonPath = target + Quarantine.reasonSuffix
            let pending = PathResolution.join(folder, "." + candidate + Quarantine.pendingSuffix)
            if Quarantine.exists(target) || Quarantine.exists(reasonPath) { continue }
            let written: Bool
            do {
                written = try Quarantine.writeExclusively(json, to: pending)
            } catch {
                throw QuarantineError(file: file, cause: error, movedTo: nil)
            }
            guard written else { continue }  // someone else's pending reason: another name
            let outcome: SafeRename.Outcome
            do {
                outcome = try SafeRename.moveWithoutReplacing(from: file, to: target)
            } catch {
                unlink(pending)
                throw QuarantineError(file: file, cause: error, movedTo: nil)
            }
            guard outcome == .moved else {
                unlink(pending)
                continue
            }
            guard rename(pending, reasonPath) == 0 else {
                // The file is safe in Rejected/; recover() renames the pending reason later.
                throw QuarantineError(file: file, cause: .current("rename", path: pending), movedTo: target)
            }
            SafeRename.syncDirectory(folder)
            return RejectedFile(path: target, reasonPath: reasonPath)
        }
        throw QuarantineError(file: file, cause: SystemError(code: EEXIST, call: "reject", path: folder), movedTo: nil)
    }

    /// What ``recover()`` did.
    public struct Recovery: Sendable, Hashable {
        /// Reasons put in place for files that were moved just before a crash.
        public var completed: [String] = []
        /// Stale pending reasons and temp copies removed (their file never arrived).
        public var discarded: [String] = []
    }

    /// Finishes what a crash interrupted: completes pending reasons of files already moved, removes the others and
    /// leftover temp copies. Run it at start, before new rejections.
    public func recover() -> Recovery {
        var recovery = Recovery()
        var folders = [root]
        while let folder = folders.popLast() {
            guard let stream = try? DirectoryStream(path: folder) else { continue }
            while let entry = try? stream.next() {
                let path = PathResolution.join(folder, entry.name)
                if entry.type == .directory {
                    if !entry.name.hasPrefix(".") { folders.append(path) }
                    continue
                }
                guard entry.type == .regular, entry.name.hasPrefix(".") else { continue }
                if entry.name.hasSuffix(Quarantine.pendingSuffix) {
                    let name = String(entry.name.dropFirst().dropLast(Quarantine.pendingSuffix.count))
                    let target = PathResolution.join(folder, name)
                    let reasonPath = target + Quarantine.reasonSuffix
                    if !name.isEmpty && Quarantine.exists(target) && !Quarantine.exists(reasonPath)
                        && rename(path, reasonPath) == 0
                    {
                        recovery.completed.append(reasonPath)
                    } else if unlink(path) == 0 {
                        recovery.discarded.append(path)
                    }
                } else if entry.name.contains(".photodrop-copy-") {
                    if unlink(path) == 0 { recovery.discarded.append(path) }
                }
            }
        }
        return recovery
    }

    /// An album title as a folder name: `/` and NUL become `_`, a leading `.` gets a `_` in front (it would be
    /// hidden), at most 255 bytes.
    public static func folderName(forAlbum album: String) -> String {
        safeFileName(album)
    }

    static func safeFileName(_ name: String) -> String {
        var result = String(
            name.unicodeScalars.map { $0 == "/" || $0 == "\u{0}" ? "_" : Character($0) })
        if result.isEmpty || result == "." || result == ".." { result = "_" + result }
        if result.hasPrefix(".") { result = "_" + result }
        while result.utf8.count > 255 - pendingSuffix.utf8.count - 1 { result.removeLast() }
        return result
    }

    /// `IMG_1.jpg` → `IMG_1 (2).jpg`; `README` → `README (2)`.
    static func suffixed(_ name: String, _ number: Int) -> String {
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(name[..<dot]) (\(number))\(name[dot...])"
        }
        return "\(name) (\(number))"
    }

    static func reasonJSON(_ reason: RejectionReason, source: String, time: UTCTimestamp) -> String {
        let members: [(String, String)] = [
            ("code", JSONText.quoted(reason.code)),
            ("message", JSONText.quoted(reason.message)),
            ("mime", reason.mime.map(JSONText.quoted) ?? "null"),
            ("source", JSONText.quoted(source)),
            ("time", JSONText.quoted(time.iso8601)),
        ]
        return "{\n" + members.map { "  \(JSONText.quoted($0.0)): \($0.1)" }.joined(separator: ",\n") + "\n}\n"
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 || errno != ENOENT
    }

    /// Creates and syncs `path` with `O_EXCL`; false when it already exists.
    private static func writeExclusively(_ text: String, to path: String) throws(SystemError) -> Bool {
        let fd = retryingOnInterrupt { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        if fd < 0 {
            if errno == EEXIST { return false }
            throw SystemError.current("open", path: path)
        }
        defer { close(fd) }
        var text = text
        let ok = text.withUTF8 { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = retryingOnInterrupt { write(fd, buffer.baseAddress! + offset, buffer.count - offset) }
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
        guard ok, fsync(fd) == 0 else {
            let error = SystemError.current("write", path: path)
            unlink(path)
            throw error
        }
        return true
    }

    private static func makeDirectories(_ path: String) throws(SystemError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw SystemError(code: ENOTDIR, call: "mkdir", path: path) }
            return
        }
        let parent = PathResolution.directory(of: path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw SystemError.current("mkdir", path: path) }
        SafeRename.syncDirectory(parent)
    }
}
