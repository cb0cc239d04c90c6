import FoundationEssentials
import PhotodropSystem

/// One original to place into the library: the file of a new asset's resource, or the file that repairs a stored
/// original (a duplicate whose stored copy is missing or damaged).
struct Placement {
    enum Done {
        case renamed
        case copied
        /// Copied because the source could not be taken over (another file system, another owner without
        /// `CAP_CHOWN`, more than one hard link); the source is removed after the commit.
        case copiedForMove
    }

    /// Owner and mode of a renamed file before the library took it over, so that an undo gives it back as it was.
    struct PreviousOwner {
        var uid: UInt32
        var gid: UInt32
        var mode: UInt32
    }

    let request: AssetCreationRequest
    let resourceIndex: Int
    let source: FileLocation
    let sourcePath: String
    let sourceInode: UInt64
    /// The size and modification time the source had when it was hashed: a copy must end with the same, or the
    /// bytes copied may not be the bytes hashed.
    let sourceSize: Int64
    let sourceModification: Date
    /// The caller's `fstat` of the source, when it vouches for it (no second look before the move).
    var vouched: ResourceFileStatus?
    /// The destination's folder relative to the library (`originals/ab`) and its name (`<uuid>.jpg`).
    let folder: String
    let name: String
    let move: Bool
    /// The stored original this file replaces (a repair), or nil for a new resource.
    let repairs: StoredOriginal?
    var done: Done?
    /// The source's folder, for the intent: recovery puts a file back only into that very folder.
    var sourceFolder: FileNode?
    var previousOwner: PreviousOwner?
    /// Where a repair put the damaged file it replaced, relative to the library (`damaged/…`).
    var setAside: String?

    /// Relative to the library folder.
    let relative: String

    init(
        request: AssetCreationRequest, resourceIndex: Int, source: FileLocation, sourcePath: String, sourceInode: UInt64,
        sourceSize: Int64, sourceModification: Date, folder: String, name: String, move: Bool, repairs: StoredOriginal?,
        vouched: ResourceFileStatus?
    ) {
        self.vouched = vouched
        self.request = request
        self.resourceIndex = resourceIndex
        self.source = source
        self.sourcePath = sourcePath
        self.sourceInode = sourceInode
        self.sourceSize = sourceSize
        self.sourceModification = sourceModification
        self.folder = folder
        self.name = name
        self.relative = "\(folder)/\(name)"
        self.move = move
        self.repairs = repairs
    }

    /// The placement of a new resource (not a repair) at `folder/name`.
    init(
        request: AssetCreationRequest, resourceIndex: Int, _ resource: AssetCreationRequest.Resource, folder: String,
        name: String
    ) {
        self.init(
            request: request, resourceIndex: resourceIndex, source: resource.source, sourcePath: resource.sourcePath,
            sourceInode: resource.inode, sourceSize: resource.byteCount,
            sourceModification: resource.modificationDate, folder: folder, name: name, move: resource.shouldMove,
            repairs: nil, vouched: resource.vouched)
    }

    /// What the ``IntentLog`` records for this placement.
    var intent: IntentLog.Entry {
        IntentLog.Entry(
            action: .place, method: move ? .move : .copy, source: sourcePath, inode: sourceInode,
            destination: relative, sourceFolder: sourceFolder)
    }
}

/// Placing the block's files failed (the transaction is rolled back, the files are put back).
struct PlacementFailure: Error {
    let underlying: any Error
}

extension WriterConnection {
    // MARK: Planning

    /// Assigns destinations `originals/xx/<asset-uuid>[-n].<ext>` to the resources of new assets, and the stored
    /// path to the file of a duplicate that repairs its stored original.
    ///
    /// `xx` is a random byte, drawn afresh after every 128 placements (counted across blocks): folders fill evenly
    /// over a library's life, while a block touches one or two folders, each costing one `fsync` (a disk cache flush)
    /// per block, and a small library does not make all 256 folders. A 2,000-file block makes 16 folder fsyncs
    /// instead of up to 256.
    func plan(_ context: ChangeContext) throws -> [Placement] {
        var placements: [Placement] = []
        for request in context.assetCreations {
            switch request.state.resolution {
            case .new: break
            case .existing:
                if let repair = request.state.repair { placements += planRepair(request, repair) }
                continue
            case .sameAs, .addition: continue
            }
            let name = request.uuid.lowercased()
            if currentFolder.isEmpty || placementsInCurrentFolder >= WriterConnection.placementsPerFolder {
                var byte: UInt8 = 0
                withUnsafeMutableBytes(of: &byte) { RandomPool.shared.fill($0) }
                currentFolder = "originals/" + NumberText.hex(byte, width: 2)
                placementsInCurrentFolder = 0
            }
            placementsInCurrentFolder += 1
            let folder = currentFolder
            request.creation.withLock { state in
                var number = 0
                for index in state.resources.indices where !state.resources[index].isSkipped {
                    let resource = state.resources[index]
                    // Interpolation sizes each string once; chains of `+` reallocated four times per file.
                    let suffix = number == 0 ? "" : "-\(number + 1)"
                    let dot = resource.fileExtension.isEmpty ? "" : "."
                    let fileName = "\(name)\(suffix)\(dot)\(resource.fileExtension)"
                    state.resources[index].destination = "\(folder)/\(fileName)"
                    number += 1
                    placements.append(
                        Placement(request: request, resourceIndex: index, resource, folder: folder, name: fileName))
                }
            }
        }
        if !context.resourceAdditions.isEmpty { placements += try planAdditions(context) }
        return placements
    }

    /// The placements of files added to a stored asset: beside its other files, named `<asset-uuid>-n.<ext>` with the
    /// first numbers its files do not use.
    private func planAdditions(_ context: ChangeContext) throws -> [Placement] {
        var placements: [Placement] = []
        for request in context.resourceAdditions {
            let stored = try database.rows(
                "SELECT r.path FROM resources r JOIN assets a ON a.id = r.asset_id WHERE a.uuid = ? ORDER BY r.id",
                [.text(request.uuid)]
            ) { $0.string(0) }
            guard let first = stored.first else { continue }  // the asset is gone: the applier says so
            let folder = Path.parent(of: first)
            var taken = Set(stored.map { name -> String in
                let last = Path.lastComponent(of: name)
                return last.firstIndex(of: ".").map { String(last[..<$0]) } ?? last
            })
            let base = request.uuid.lowercased()
            var number = 2
            request.creation.withLock { state in
                for index in state.resources.indices where !state.resources[index].isSkipped {
                    let resource = state.resources[index]
                    while taken.contains("\(base)-\(number)") { number += 1 }
                    taken.insert("\(base)-\(number)")
                    let dot = resource.fileExtension.isEmpty ? "" : "."
                    let fileName = "\(base)-\(number)\(dot)\(resource.fileExtension)"
                    state.resources[index].destination = "\(folder)/\(fileName)"
                    placements.append(
                        Placement(request: request, resourceIndex: index, resource, folder: folder, name: fileName))
                }
            }
        }
        return placements
    }

    /// The placement of a duplicate's file over its damaged stored original.
    private func planRepair(_ request: AssetCreationRequest, _ repair: StoredOriginal) -> [Placement] {
        request.creation.withLock { state in
            guard
                let index = state.resources.firstIndex(where: {
                    ($0.type == .photo || $0.type == .video) && !$0.isSkipped
                })
            else { return [] }
            let resource = state.resources[index]
            let folder = Path.parent(of: repair.path)
            state.resources[index].destination = repair.path
            return [
                Placement(
                    request: request, resourceIndex: index, source: resource.source, sourcePath: resource.sourcePath,
                    sourceInode: resource.inode, sourceSize: resource.byteCount,
                    sourceModification: resource.modificationDate, folder: folder,
                    name: Path.lastComponent(of: repair.path),
                    move: resource.shouldMove, repairs: repair, vouched: resource.vouched)
            ]
        }
    }

    /// How many files of one block go into the same `originals/xx` folder.
    static let placementsPerFolder = 128

    // MARK: Placing

    /// The placement step's work: resolves every source's folder, makes the intents durable, then places the files.
    func resolveAndPlace(_ placements: inout [Placement], batch: Int64) throws {
        var folders = SourceFolders()
        var resolved: [SourceFolders.Source] = []
        resolved.reserveCapacity(placements.count)
        for index in placements.indices {
            let source = try folders.resolve(placements[index].source)
            placements[index].sourceFolder = source.node
            resolved.append(source)
        }
        // The intents are durable before the first file moves.
        try IntentLog.write(placements.map(\.intent), batch: batch, to: intentLog, path: intentLogPath)
        try place(&placements, sources: resolved)
    }

    /// Places every file, then makes the new directory entries durable (one `fsync` per touched directory).
    ///
    /// A moved file is taken over when it can be: renamed into place, then given to the library's user and group with
    /// mode `0440` through the open descriptor (``LibraryPermissions``). It is copied instead when it cannot: when it
    /// has more than one hard link (renaming would leave the original reachable and editable elsewhere), when it
    /// belongs to another user and this process lacks `CAP_CHOWN`, or across file systems. A file some process still
    /// has open for writing is refused (a read lease is refused then): its content could still change.
    ///
    /// Copies are written to temporary names first, made durable together (one `syncfs` for the block instead of an
    /// `fsync` per file, which dominated copying imports of many small files), and only then renamed into place, so a
    /// final name never points at bytes that are not on disk.
    ///
    /// The file moved or copied must be the very file that was hashed. In a folder only this process's user can
    /// change (its own, not writable by group or others: the staging folder, an import tree of its own) nobody can
    /// swap a name between the hashing and the move, so the worker's `fstat` is trusted as it is. Elsewhere the name
    /// is checked with `fstatat` before and the stored file's inode after the rename (a file swapped in between is
    /// put back by the block's undo); a file opened to be copied or taken over is checked through its descriptor.
    private func place(_ placements: inout [Placement], sources: [SourceFolders.Source]) throws {
        var touched = Set<String>()
        var createdFolders = false
        var copies: [(index: Int, done: Placement.Done)] = []
        for index in placements.indices {
            let placement = placements[index]
            let destination: Directory
            let created: Bool
            do { (destination, created) = try destinationFolder(placement.folder) } catch { throw systemError(error) }
            createdFolders = createdFolders || created
            touched.insert(placement.folder)
            if placement.repairs != nil { placements[index].setAside = try setAside(placement, in: destination) }
            let sourceFolder = sources[index].folder
            let sourceName = sources[index].name
            let privateFolder = sources[index].isPrivate
            // The very file that was hashed, a regular file: as the caller's fstat saw it while hashing (in a folder
            // nobody else can change), or one fstatat on the source's folder (no link followed).
            let found: FileStatus?
            if privateFolder, let vouched = placement.vouched, let links = vouched.links, let owner = vouched.owner,
                let group = vouched.group, let mode = vouched.mode
            {
                found = FileStatus(
                    mode: UInt32(mode), node: FileNode(device: 0, inode: UInt64(vouched.inode)),
                    linkCount: UInt64(links), owner: UInt32(owner), group: UInt32(group))
            } else {
                do throws(SystemError) { found = try sourceFolder.status(sourceName) } catch { throw systemError(error) }
            }
            guard let info = found, info.isRegularFile, UInt64(info.node.inode) == placement.sourceInode
            else { throw Self.fileReplaced(placement) }
            if placement.move && canTakeOver(info) {
                // Another user's file is taken over through a descriptor, after a read lease showed that nobody
                // still has it open for writing (once renamed into the library's 0750 folders, nobody else can
                // open it again). The daemon's own files need neither: their owner is the library's owner.
                let foreign = info.owner != Capabilities.effectiveUser
                var descriptor: FileDescriptor?
                if foreign {
                    do throws(SystemError) {
                        descriptor = try sourceFolder.open(
                            sourceName, flags: [.readOnly, .nonBlocking, .noControllingTerminal])
                    } catch {
                        throw systemError(error)
                    }
                }
                if let descriptor { try checkSameFile(descriptor, placement) }
                if let descriptor, LeaseProbe.hasWriters(descriptor) == true {
                    throw PhotosError(
                        .invalidResource, title: "File still being written",
                        message: "Some process still has '\(placement.sourcePath)' open for writing; it is stored "
                            + "once the writer closed it.",
                        cause: .io(operation: "fcntl", path: placement.sourcePath, errno: Errno.resourceBusy))
                }
                do throws(SystemError) {
                    guard try sourceFolder.rename(sourceName, to: destination, as: placement.name) else {
                        throw SystemError(code: Errno.fileExists, call: "renameat2", path: placement.sourcePath)
                    }
                    placements[index].done = .renamed
                    placements[index].previousOwner = Placement.PreviousOwner(
                        uid: info.owner, gid: info.group, mode: info.mode & 0o7777)
                } catch where error.code == Errno.improperLink {
                    // Another file system: copied below.
                } catch {
                    throw systemError(error)
                }
                if placements[index].done == .renamed {
                    if !privateFolder && !foreign {
                        // Another user could have swapped the name between the fstatat and the rename: the file now
                        // in the library (whose folders nobody else can change) must be the one that was hashed.
                        // A different file is the block's undo's to rename back, as it came (not given the hashed
                        // file's owner and mode).
                        guard try isHashedFile(placement, in: destination) else {
                            placements[index].previousOwner = nil
                            throw Self.fileReplaced(placement)
                        }
                    }
                    try takeOver(descriptor, info, in: destination, name: placement.name, path: placement.relative)
                    continue
                }
            }
            let input: FileDescriptor
            do throws(SystemError) {
                input = try sourceFolder.open(sourceName, flags: [.readOnly, .nonBlocking, .noControllingTerminal])
            } catch {
                throw systemError(error)
            }
            try checkSameFile(input, placement)
            try copyToTemporary(input, placement, in: destination)
            copies.append((index, placement.move ? .copiedForMove : .copied))
        }
        if !copies.isEmpty {
            do throws(SystemError) {
                // One flush for the block's copies instead of an fsync each.
                try originals.syncFileSystem()
                for (index, done) in copies {
                    let (folder, _) = try destinationFolder(placements[index].folder)
                    let name = placements[index].name
                    guard try folder.rename(Self.temporaryName(name), to: folder, as: name) else {
                        throw SystemError(code: Errno.fileExists, call: "renameat2", path: absolute(placements[index].relative))
                    }
                    placements[index].done = done
                }
            } catch {
                throw systemError(error)
            }
        }
        do throws(SystemError) {
            for folder in touched { try destinationFolder(folder).0.sync() }
            if createdFolders { try originals.sync() }
        } catch {
            throw systemError(error)
        }
    }

    /// Whether a file can become the library's by a rename: it has one link, and it is ours or we may give it to us.
    private func canTakeOver(_ info: FileStatus) -> Bool {
        guard info.linkCount == 1 else { return false }
        if info.owner == Capabilities.effectiveUser { return true }
        return Capabilities.canChangeOwner
    }

    /// Throws "File replaced" unless `descriptor` is the file that was hashed (its inode).
    private func checkSameFile(_ descriptor: FileDescriptor, _ placement: Placement) throws {
        let info: FileStatus
        do throws(SystemError) { info = try descriptor.status() } catch {
            throw PhotosError.io("fstat", path: placement.sourcePath, errno: error.code, action: "check a file to store")
        }
        guard UInt64(info.node.inode) == placement.sourceInode else { throw Self.fileReplaced(placement) }
    }

    /// Whether the file renamed to `placement.name` in `folder` is the one that was hashed (its inode).
    private func isHashedFile(_ placement: Placement, in folder: Directory) throws -> Bool {
        let stored: FileStatus?
        do throws(SystemError) { stored = try folder.status(placement.name) } catch { throw systemError(error) }
        return stored.map { UInt64($0.node.inode) == placement.sourceInode } ?? false
    }

    /// The error for a source that is no longer the file that was read.
    static func fileReplaced(_ placement: Placement) -> PhotosError {
        PhotosError(
            .invalidResource, title: "File replaced",
            message: "'\(placement.sourcePath)' is no longer the file that was read (another file took its "
                + "name, or it is gone); add it again.",
            cause: .io(operation: "fstat", path: placement.sourcePath, errno: Errno.staleNFSFileHandle))
    }

    /// Gives a renamed file to the library's user and group, read-only: through `descriptor` when the file came from
    /// another user (-1 otherwise), else by its new name in the library's own folder, which nobody else can change.
    private func takeOver(
        _ descriptor: FileDescriptor?, _ info: FileStatus, in folder: Directory, name: String, path relative: String
    ) throws {
        func path() -> String { absolute(relative) }
        let user = Capabilities.effectiveUser
        let group = permissions.groupID
        let owner: UInt32 = info.owner == user ? UInt32.max : user
        let changeGroup = group != nil && info.group != group!
        if owner != UInt32.max || changeGroup {
            let newOwner = owner == UInt32.max ? nil : owner
            do throws(SystemError) {
                if let descriptor { try descriptor.setOwner(newOwner, group: group) } else {
                    try folder.setOwner(of: name, owner: newOwner, group: group)
                }
            } catch {
                throw PhotosError.io("fchown", path: path(), errno: error.code, action: "take over a stored original")
            }
        }
        if info.mode & 0o7777 != permissions.originalMode {
            do throws(SystemError) {
                if let descriptor { try descriptor.setPermissions(permissions.originalMode) } else {
                    try folder.setPermissions(of: name, permissions.originalMode)
                }
            } catch {
                throw PhotosError.io(
                    "fchmod", path: path(), errno: error.code, action: "make a stored original read-only")
            }
        }
    }

    /// The `originals/xx` (or other) folder `relative` to the library, made with the library's mode when missing.
    private func destinationFolder(_ relative: String) throws(SystemError) -> (Directory, created: Bool) {
        if let folder = originalFolders[relative] { return (folder, false) }
        do {
            var created = false
            var current = libraryDirectory
            var components = relative.split(separator: "/")
            if components.first == "originals" {
                // `originals/` exists since the writer opened: start there.
                current = originals
                components.removeFirst()
            }
            for component in components {
                let name = String(component)
                if try current.makeDirectory(name, mode: permissions.folderMode) {
                    created = true
                    current = try current.directory(name)
                    try LibraryFiles.apply(permissions, toFolder: current)
                } else {
                    current = try current.directory(name)
                }
            }
            originalFolders[relative] = current
            return (current, created)
        }
    }

    /// Moves the damaged file at a repair's destination (if anything is there) into `damaged/`; returns where it
    /// went, relative to the library.
    private func setAside(_ placement: Placement, in folder: Directory) throws -> String? {
        do throws(SystemError) {
            guard try folder.status(placement.name) != nil else { return nil }
            let (damaged, _) = try destinationFolder(WriterConnection.damagedFolder)
            let stamp = UTCDateFields(secondsSince1970: Int64(Date().timeIntervalSince1970.rounded(.down)))
                .stamp(timeSeparator: "")
            for attempt in 1...100 {
                let name = attempt == 1 ? "\(stamp)-\(placement.name)" : "\(stamp)-\(attempt)-\(placement.name)"
                if try folder.rename(placement.name, to: damaged, as: name) {
                    try damaged.sync()
                    return WriterConnection.damagedFolder + "/" + name
                }
            }
            throw SystemError(code: Errno.fileExists, call: "renameat2", path: absolute(placement.relative))
        } catch {
            throw systemError(error)
        }
    }

    /// Where repairs keep the damaged originals they replaced.
    static let damagedFolder = "damaged"

    /// Copies an open source to its destination's temporary name, without syncing (``place(_:sources:)`` syncs the
    /// batch).
    private func copyToTemporary(_ input: FileDescriptor, _ placement: Placement, in folder: Directory) throws {
        let temporary = Self.temporaryName(placement.name)
        do throws(SystemError) {
            try folder.remove(temporary)
            let output = try folder.open(
                temporary, flags: [.writeOnly, .create, .exclusive], mode: permissions.originalMode)
            var finished = false
            defer {
                if !finished { try? folder.remove(temporary) }
            }
            try FileCopy.copyContents(
                from: input, to: output, buffer: buffer, source: placement.sourcePath,
                destination: absolute(placement.relative))
            // A writer that kept the source open (a file of another user, whose writers cannot be excluded by a
            // lease) would change its size or modification time: then what was copied is not what was hashed.
            let after = try input.status(path: placement.sourcePath)
            let modified = Date(
                timeIntervalSince1970: Double(after.modification.seconds) + Double(after.modification.nanoseconds) / 1e9)
            guard after.size == placement.sourceSize,
                abs(modified.timeIntervalSince(placement.sourceModification)) < 1e-6
            else { throw SystemError(code: Errno.staleNFSFileHandle, call: "copy (the source changed while it was copied)", path: placement.sourcePath) }
            if let group = permissions.groupID {
                try output.setOwner(nil, group: group, path: absolute(placement.relative))
            }
            finished = true
        } catch {
            throw systemError(error)
        }
    }

    /// The name a copy is written under before it is renamed into place.
    static func temporaryName(_ name: String) -> String { "." + name + ".partial" }

    // MARK: Undoing

    /// Puts placed files back (renamed ones to their source, as they were; copies removed; damaged originals a repair
    /// set aside back in place). The intents of files that could not be put back are copied into the
    /// `placement_intents` table, since the next block overwrites the ``IntentLog``; if even that fails, the log is
    /// kept under a name of its own (`<session>.<batch>.intents`). Either way recovery settles them once this session
    /// is gone.
    func undo(_ placements: [Placement], batch: Int64) {
        var failed: [Placement] = []
        for placement in placements.reversed() {
            let folder = try? destinationFolder(placement.folder).0
            switch placement.done {
            case .renamed:
                if let folder, let (sourceFolder, sourceName) = try? placement.source.parent(),
                    (try? folder.rename(placement.name, to: sourceFolder, as: sourceName)) == true
                {
                    restoreOwner(placement, in: sourceFolder, name: sourceName)
                } else {
                    failed.append(placement)
                }
            case .copied, .copiedForMove:
                if let folder, (try? folder.remove(placement.name)) == nil { failed.append(placement) }
            case nil:
                // Possibly copied to its temporary name, not yet renamed into place.
                try? folder?.remove(Self.temporaryName(placement.name))
            }
            if let aside = placement.setAside, let folder,
                let damaged = try? destinationFolder(WriterConnection.damagedFolder).0
            {
                _ = try? damaged.rename(Path.lastComponent(of: aside), to: folder, as: placement.name)
            }
            request(placement.request, clearDestinationAt: placement.resourceIndex)
        }
        defer { if !placements.isEmpty { clearIntentLog() } }
        guard !failed.isEmpty else { return }
        let kept: Void? = try? database.inTransaction(.immediate) {
            for placement in failed {
                let intent = placement.intent
                try insertIntent(
                    action: intent.action, method: intent.method, source: intent.source, inode: intent.inode,
                    destination: intent.destination, batch: batch)
            }
        }
        if kept == nil {
            let keptLog = IntentLog.keptPath(session: session.id, batch: batch, locksDirectory: session.locksDirectory)
            _ = try? FileSystem.copyFile(from: intentLogPath, to: keptLog, buffer: buffer)
        }
    }

    /// Gives a file that was taken over and then put back its old owner and mode (best effort).
    private func restoreOwner(_ placement: Placement, in folder: Directory, name: String) {
        guard let previous = placement.previousOwner,
            let descriptor = try? folder.open(name, flags: [.readOnly, .nonBlocking, .noControllingTerminal])
        else { return }
        try? descriptor.setOwner(previous.uid, group: previous.gid)
        try? descriptor.setPermissions(previous.mode)
    }

    /// Empties the ``IntentLog`` once its block is settled, so that a live writer between blocks shows no intents
    /// in flight (`verify`). Not synced: a log that still holds a settled block's intents after a crash is harmless.
    func clearIntentLog() {
        try? intentLog.truncate(to: 0)
    }

    private func request(_ request: AssetCreationRequest, clearDestinationAt index: Int) {
        request.creation.withLock { $0.resources[index].destination = nil }
    }

    /// After the commit: removes sources of copies that stand for moves, and files of purged assets.
    func finishCommitted(_ placements: [Placement], purged: [String], batch: Int64) {
        if !placements.isEmpty { clearIntentLog() }
        for placement in placements where placement.done == .copiedForMove {
            try? placement.source.remove()
        }
        guard !purged.isEmpty else { return }
        for path in purged { try? FileSystem.remove(libraryPath + "/" + path) }
        _ = try? database.inTransaction(.immediate) {
            try database.run(
                "DELETE FROM placement_intents WHERE session = ? AND batch = ?", [.text(session.id), .integer(batch)])
        }
    }

    /// The absolute path of a library-relative path.
    func absolute(_ relative: String) -> String { libraryPath + "/" + relative }

    /// A ``PhotodropSystem/SystemError`` as the catalog's own error type.
    func systemError(_ error: SystemError) -> SystemError {
        SystemError(code: error.code, call: error.call, path: error.path ?? libraryPath)
    }
}

/// The folders a block's sources are in, each opened (and its identity read) once per block: a block's files mostly
/// come from one folder (the staging folder, an import's album folder), so the last one is kept at hand without any
/// lookup.
struct SourceFolders {
    /// A source's folder, that folder's identity, the file's name in it, and whether only this process's user can
    /// change the folder's entries.
    struct Source {
        var folder: Directory
        var node: FileNode
        var name: String
        var isPrivate: Bool
    }

    private var last: (root: ObjectIdentifier, parent: Substring, folder: Directory, node: FileNode, isPrivate: Bool)?
    private var others: [[UInt8]: (Directory, FileNode, Bool)] = [:]

    /// The folder holding `source`, its identity, and the file's name in it.
    mutating func resolve(_ source: FileLocation) throws -> Source {
        let relative = source.relativePath
        let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/"))
        let parent = slash.map { relative[..<$0] } ?? ""
        let name = slash.map { String(relative[relative.utf8.index(after: $0)...]) } ?? relative
        let root = ObjectIdentifier(source.directory)
        if let last, last.root == root, last.parent.utf8.elementsEqual(parent.utf8) {
            return Source(folder: last.folder, node: last.node, name: name, isPrivate: last.isPrivate)
        }
        // Bytes, not a String: String equality is canonical, and `Cafe\u{301}` and `Caf\u{E9}` are two folders.
        var key = withUnsafeBytes(of: root.hashValue) { Array($0) }
        key += parent.utf8
        let entry: (Directory, FileNode, Bool)
        if let cached = others[key] {
            entry = cached
        } else {
            do throws(SystemError) {
                let folder = parent.isEmpty ? source.directory : try source.directory.directory(String(parent))
                let info = try folder.status()
                // Only the owner can add, remove or rename entries of a folder of its own without group or other
                // write permission (root aside).
                let isPrivate = info.owner == Capabilities.effectiveUser && info.mode & 0o022 == 0
                entry = (folder, info.node, isPrivate)
            } catch {
                throw SystemError(code: error.code, call: error.call, path: error.path ?? source.path)
            }
            others[key] = entry
        }
        last = (root, parent, entry.0, entry.1, entry.2)
        return Source(folder: entry.0, node: entry.1, name: name, isPrivate: entry.2)
    }
}
