import MediaProbe
import PhotodropSystem
import PhotodropTelemetry

/// Why a file was rejected, as written into `<name>.reason.json`.
public struct QuarantineReason: Sendable, Hashable {
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

extension QuarantineReason {
    /// Every reason a file can be rejected for: the stable `reason` of `<name>.reason.json`, of `status` and of the
    /// outcome log. The probe's verdicts (``MediaProbe/RejectionReason``) and the pipeline's own; docs/troubleshooting.md
    /// has a section for each, which a test checks against this list.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A video Apple devices cannot play (the probe's verdict).
        case unsupportedVideo
        /// Neither a photo, a GIF nor a video (the probe's verdict).
        case unsupportedType
        /// Truncated or broken (the probe's verdict).
        case corrupt
        /// Zero bytes (the probe's verdict).
        case empty
        /// A sidecar or adjustments file whose media file did not come, or cannot take it.
        case orphanSidecar

        /// The code of a probe's verdict.
        public init(_ reason: RejectionReason) {
            switch reason {
            case .unsupportedVideo: self = .unsupportedVideo
            case .unsupportedType: self = .unsupportedType
            case .corrupt: self = .corrupt
            case .empty: self = .empty
            }
        }
    }

    /// A reason with one of the codes of ``Code``.
    public init(_ code: Code, message: String, mime: String?) {
        self.init(code: code.rawValue, message: message, mime: mime)
    }
}

/// Where a rejected file went.
public struct RejectedFile: Sendable, Hashable {
    /// The rejected file, `Rejected/<Album>/<name>` (with a ` (2)`-style suffix on a name clash).
    public var path: String
    /// Its `<name>.reason.json`.
    var reasonPath: String
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
///
/// Everything happens below `Rejected/`'s open folder and never through a link: `Rejected/Trip` replaced by a link
/// to another folder is refused (`ELOOP`), not followed. Names are shortened to fit (``fittedName(_:suffix:)``).
public struct Quarantine: Sendable {
    /// The `rejected` folder of the configuration.
    public let root: String
    private let folder: FolderRoot

    static let pendingSuffix = ".reason.json.pending"
    static let reasonSuffix = ".reason.json"
    /// The longest name a rejected file gets, in bytes: its pending reason, `.<name>.reason.json.pending`, must fit
    /// in the 255 bytes a Linux file name may have.
    static let maximumNameBytes = 255 - 1 - pendingSuffix.utf8.count

    public init(root: String) {
        self.root = root
        self.folder = FolderRoot(path: root)
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
        _ file: FileLocation, album: String?, name: String? = nil, reason: QuarantineReason, source: String,
        at time: UTCTimestamp = .now()
    ) throws(QuarantineError) -> RejectedFile {
        let target: Directory
        do {
            let rootDirectory = try folder.directory(creating: true)
            if let album {
                let folderName = Quarantine.folderName(forAlbum: album)
                let made = try rootDirectory.makeDirectory(folderName)
                target = try rootDirectory.directory(folderName)
                if made { try rootDirectory.sync() }
            } else {
                target = rootDirectory
            }
        } catch {
            throw QuarantineError(file: file.path, cause: error, movedTo: nil)
        }
        let baseName = Quarantine.safeFileName(name ?? file.name)
        let json = Quarantine.reasonJSON(reason, source: source, time: time)
        for attempt in 1...10_000 {
            let candidate = Quarantine.fittedName(baseName, suffix: attempt == 1 ? nil : attempt)
            let reasonName = candidate + Quarantine.reasonSuffix
            let pending = "." + candidate + Quarantine.pendingSuffix
            let targetPath = Path.join(target.path, candidate)
            do {
                if try target.status(candidate) != nil { continue }
                if try target.status(reasonName) != nil { continue }
            } catch {
                throw QuarantineError(file: file.path, cause: error, movedTo: nil)
            }
            let written: Bool
            do {
                written = try Quarantine.writeExclusively(json, to: pending, in: target)
            } catch {
                throw QuarantineError(file: file.path, cause: error, movedTo: nil)
            }
            guard written else { continue }  // someone else's pending reason: another name
            let moved: Bool
            do {
                moved = try Quarantine.move(file, to: target, as: candidate)
            } catch {
                try? target.remove(pending)
                throw QuarantineError(file: file.path, cause: error, movedTo: nil)
            }
            guard moved else {
                try? target.remove(pending)
                continue
            }
            do {
                try target.replace(pending, to: target, as: reasonName)
            } catch {
                // The file is safe in Rejected/; recover() renames the pending reason later.
                throw QuarantineError(file: file.path, cause: error, movedTo: targetPath)
            }
            try? target.sync()
            return RejectedFile(path: targetPath, reasonPath: targetPath + Quarantine.reasonSuffix)
        }
        throw QuarantineError(
            file: file.path, cause: SystemError(code: Errno.fileExists, call: "reject", path: target.path), movedTo: nil)
    }

    /// ``reject(_:album:name:reason:source:at:)`` for a file named by its path (its folder opened as named).
    public func reject(
        _ path: String, album: String?, name: String? = nil, reason: QuarantineReason, source: String,
        at time: UTCTimestamp = .now()
    ) throws(QuarantineError) -> RejectedFile {
        let file: FileLocation
        do { file = try FileLocation(path: path) } catch {
            throw QuarantineError(file: path, cause: error, movedTo: nil)
        }
        return try reject(file, album: album, name: name, reason: reason, source: source, at: time)
    }

    /// Moves `file` into `folder` as `name` without replacing anything; across file systems through a synced copy
    /// beside the destination (the source is removed once the copy is in place). False when `name` is taken.
    static func move(_ file: FileLocation, to folder: Directory, as name: String) throws(SystemError) -> Bool {
        let (from, sourceName) = try file.parent()
        do {
            return try from.rename(sourceName, to: folder, as: name)
        } catch where error.code == Errno.improperLink {
            let input = try from.open(sourceName, flags: [.readOnly, .nonBlocking, .noControllingTerminal])
            let info = try input.status(path: file.path)
            let temporary = ".\(name).photodrop-copy-\(SystemProcess.id)-\(UInt32.random(in: 0...UInt32.max))"
            let output = try folder.open(
                temporary, flags: [.writeOnly, .create, .exclusive], mode: info.mode & 0o777)
            var keep = false
            defer { if !keep { try? folder.remove(temporary) } }
            do {
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
                defer { buffer.deallocate() }
                try FileCopy.copyContents(
                    from: input, to: output, buffer: buffer, source: file.path,
                    destination: Path.join(folder.path, name))
                try? output.setTimes(access: info.access, modification: info.modification)
                try output.sync(path: temporary)
            }
            guard try folder.rename(temporary, to: folder, as: name) else { return false }
            keep = true
            try? folder.sync()
            try from.remove(sourceName)
            return true
        }
    }

    /// What ``recover()`` did.
    public struct Recovery: Sendable, Hashable {
        /// Reasons put in place for files that were moved just before a crash.
        public var completed: [String] = []
        /// Stale pending reasons and temp copies removed (their file never arrived).
        var discarded: [String] = []
    }

    /// Finishes what a crash interrupted: completes pending reasons of files already moved, removes the others and
    /// leftover temp copies. Run it at start, before new rejections. Links below `Rejected/` are not followed.
    public func recover() -> Recovery {
        var recovery = Recovery()
        guard let rootDirectory = try? folder.directory() else { return recovery }
        for item in DirectoryWalker(root: rootDirectory) {
            guard case .entry(let entry, _, let current) = item, entry.type == .regular, entry.name.hasPrefix(".")
            else { continue }
            let path = Path.join(current.path, entry.name)
            if entry.name.hasSuffix(Quarantine.pendingSuffix) {
                let name = String(entry.name.dropFirst().dropLast(Quarantine.pendingSuffix.count))
                let reasonName = name + Quarantine.reasonSuffix
                if !name.isEmpty, (try? current.status(name)) ?? nil != nil,
                    (try? current.status(reasonName)) ?? nil == nil,
                    (try? current.replace(entry.name, to: current, as: reasonName)) != nil
                {
                    recovery.completed.append(Path.join(current.path, reasonName))
                } else if (try? current.remove(entry.name)) != nil {
                    recovery.discarded.append(path)
                }
            } else if entry.name.contains(".photodrop-copy-") {
                if (try? current.remove(entry.name)) != nil { recovery.discarded.append(path) }
            }
        }
        return recovery
    }

    /// An album title as a folder name: `/` becomes `_`, a leading `.` gets a `_` in front (it would be hidden), at
    /// most 255 bytes.
    public static func folderName(forAlbum album: String) -> String {
        fittedName(safeFileName(album), suffix: nil, limit: 255)
    }

    /// `/` (never part of a name) becomes `_`; a name that would be hidden or special gets a `_` in front.
    static func safeFileName(_ name: String) -> String {
        var result = name.replacing("/", with: "_")
        if result.isEmpty || result == "." || result == ".." { result = "_" + result }
        if result.hasPrefix(".") { result = "_" + result }
        return result
    }

    /// `name` with the clash suffix (` (2)`), shortened to at most `limit` bytes (``maximumNameBytes``): the stem is
    /// cut at a character boundary (never inside a multi-byte character, nor inside a byte escape of a name that is
    /// not UTF-8), the extension and the suffix are kept. So `<name>.reason.json` and the pending reason both fit
    /// in 255 bytes.
    static func fittedName(_ name: String, suffix number: Int?, limit: Int = maximumNameBytes) -> String {
        let suffix = number.map { " (\($0))" } ?? ""
        var stem = name
        var ext = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            let candidate = String(name[dot...])
            // A short extension is kept whole; a "long extension" is just part of the name.
            if FileNameEncoding.bytes(of: candidate).count <= 32 {
                stem = String(name[..<dot])
                ext = candidate
            }
        }
        let budget = limit - FileNameEncoding.bytes(of: ext).count - suffix.utf8.count
        return truncated(stem, toBytes: max(1, budget)) + suffix + ext
    }

    /// The longest prefix of `text` with at most `limit` bytes, cut between Unicode scalars and never inside a byte
    /// escape.
    static func truncated(_ text: String, toBytes limit: Int) -> String {
        if FileNameEncoding.bytes(of: text).count <= limit { return text }
        var result = ""
        var used = 0
        var stop = false
        FileNameEncoding.forEachPart(of: text) { part in
            guard !stop else { return }
            switch part {
            case .scalar(let scalar):
                let size = String(scalar).utf8.count
                if used + size > limit {
                    stop = true
                    return
                }
                used += size
                result.unicodeScalars.append(scalar)
            case .byte(let byte):
                if used + 1 > limit {
                    stop = true
                    return
                }
                used += 1
                result += FileNameEncoding.string(fromBytes: [byte]).text
            }
        }
        return result
    }

    /// `IMG_1.jpg` → `IMG_1 (2).jpg`; `README` → `README (2)`.
    static func suffixed(_ name: String, _ number: Int) -> String {
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(name[..<dot]) (\(number))\(name[dot...])"
        }
        return "\(name) (\(number))"
    }

    static func reasonJSON(_ reason: QuarantineReason, source: String, time: UTCTimestamp) -> String {
        var writer = JSONWriter(pretty: true, capacity: 512)
        writer.beginObject()
        writer.member("code", reason.code)
        writer.member("message", reason.message)
        writer.member("mime", reason.mime)
        writer.member("source", source)
        writer.member("time", time.iso8601)
        writer.endObject()
        return writer.text + "\n"
    }

    /// Creates and syncs `name` in `folder` with `O_EXCL`; false when it already exists.
    private static func writeExclusively(_ text: String, to name: String, in folder: Directory) throws(SystemError)
        -> Bool
    {
        let fd: FileDescriptor
        do {
            fd = try folder.open(name, flags: [.writeOnly, .create, .exclusive], mode: 0o644)
        } catch where error.code == Errno.fileExists {
            return false
        }
        let path = Path.join(folder.path, name)
        do {
            try FileSystem.writeAll(text, to: fd, path: path)
            try fd.sync(path: path)
        } catch {
            try? folder.remove(name)
            throw error
        }
        return true
    }
}
