import PhotodropSystem
import Synchronization
import PhotodropTelemetry
import PhotodropConcurrency
import PhotodropConfiguration

/// Watches the inbox and every folder below it with inotify, as an `AsyncSequence` of ``InboxEvent``s.
///
/// - The first event is ``InboxEvent/rescanNeeded(_:)`` with ``RescanReason/startup``, sent once every folder has
///   its watch, so that a scan started then misses nothing.
/// - A new folder (`IN_CREATE` or `IN_MOVED_TO` with `IN_ISDIR`) gets its watch at once and is then listed,
///   reporting ``FileActivity/listed`` for files that landed before the watch existed (`tar -x`, `mv` of a full
///   folder). Its subfolders get watches the same way, top-down.
/// - Hidden folders (and folders matching a config `ignore` pattern) are not watched; temp and hidden file names
///   produce no events at all.
/// - `IN_Q_OVERFLOW`: the watches are rebuilt and ``RescanReason/overflow`` asks for a full rescan.
/// - A removed or moved-away subfolder is forgotten (``InboxEvent/directoryRemoved(_:)``); if it comes back it is
///   a new folder. If the inbox itself goes away (deleted, renamed, or its path now names another folder, e.g.
///   after a parent folder was renamed: checked every `inboxPollInterval`), the watcher polls until it is back,
///   rebuilds its watches and sends ``RescanReason/inboxRecreated``. The inbox path may be a symbolic link.
/// - Watch budget: `fs.inotify.max_user_watches` is read at start and logged. When `inotify_add_watch` fails with
///   `ENOSPC`, one warning names the sysctl to raise, and folders without a watch are listed every
///   `fallbackRescanInterval` instead (reporting ``FileActivity/polled``); the watcher also retries their watches
///   then, so raising the limit takes effect without a restart.
/// - Back-pressure: the descriptor is only read when the consumer asks for the next event; a consumer that falls far
///   behind gets an overflow and a rescan, never unbounded memory.
///
/// One consumer: iterate the watcher from one task. ``close()`` ends the iteration.
public final class InotifyWatcher: AsyncSequence, Sendable {
    public typealias Element = InboxEvent
    public typealias Failure = Never

    /// Tuning; the defaults suit a daemon.
    public struct Options: Sendable {
        /// How often folders without a watch are listed. Default 30 s.
        var fallbackRescanInterval: Duration
        /// How often a vanished inbox is looked for. Default 1 s.
        var inboxPollInterval: Duration
        /// Names not watched and not reported (config `ignore`; hidden names are always skipped).
        public var ignore: IgnoreRules
        /// Pretends the kernel's watch limit is this many watches (for tests of the fallback without changing the
        /// system-wide sysctl). Nil: the real limit only.
        var simulatedWatchLimit: Int?
        /// Told when the watch limit is reached and when every folder has a watch again.
        public var health: HealthMonitor?
        /// photodrop's own staging folder below the inbox (`.photodrop/claimed`), if any. A rename between it and the
        /// inbox is photodrop's own claim or put-back, which the watcher does not report (recognised by the kernel's
        /// rename cookie, not by name or time).
        var stagingFolder: String?
        /// The inotify instance to watch with, instead of a new one: one made under other kernel limits (a test
        /// lowers `fs.inotify.max_queued_events`, which the kernel reads when an instance is made, only for as long as
        /// it takes to make one).
        public var instance: Inotify?

        public init(
            fallbackRescanInterval: Duration = .seconds(30), inboxPollInterval: Duration = .seconds(1),
            ignore: IgnoreRules = IgnoreRules(), simulatedWatchLimit: Int? = nil, health: HealthMonitor? = nil,
            stagingFolder: String? = nil
        ) {
            self.stagingFolder = stagingFolder
            self.fallbackRescanInterval = fallbackRescanInterval
            self.inboxPollInterval = inboxPollInterval
            self.ignore = ignore
            self.simulatedWatchLimit = simulatedWatchLimit
            self.health = health
        }
    }

    /// A snapshot of the watch budget, for `photodrop status` (through `watch.status.json`).
    public struct Status: Sendable, Hashable {
        /// Folders with an inotify watch.
        public var watchedFolders: Int
        /// Folders found without a watch (limit reached); they are polled.
        public var unwatchedFolders: Int
        /// `fs.inotify.max_user_watches` as read at start (nil if unreadable). The limit is per user, shared with
        /// every other inotify user of the same account.
        public var maxUserWatches: Int?
        /// Whether the inbox folder currently exists.
        var inboxPresent: Bool
        /// Why the whole inbox is also rescanned on an interval of its own: the file system it is on (`nfs`, `cifs`
        /// …: other machines write there unseen by inotify), or `poll` when the config asks for it; nil when it is not.
        public var polledInbox: String?
        /// How often a polled inbox is rescanned, in seconds.
        public var rescanSeconds: Int?
    }

    /// The watched inbox, absolute.
    public let inbox: String
    private let core: Mutex<InotifyWatcherCore>
    private let readiness: ReadinessSignal

    /// Starts watching `inbox` (it may be missing: then the watcher waits for it).
    ///
    /// Throws when no inotify instance can be created (`EMFILE`: `fs.inotify.max_user_instances` reached).
    public init(inbox: String, options: Options = Options(), logger: Logger = .disabled) throws(SystemError) {
        let inotify: Inotify
        if let given = options.instance { inotify = given } else { inotify = try Inotify() }
        let absolute = Path.resolve(inbox, against: Path.currentDirectory())
        self.inbox = absolute
        self.core = Mutex(InotifyWatcherCore(inotify: inotify, inbox: absolute, options: options, logger: logger))
        // The instance stays open until the readiness source is cancelled (its handler holds the last reference).
        self.readiness = ReadinessSignal(
            fileDescriptor: inotify.descriptor.rawValue, label: "photodrop.inotify") { withExtendedLifetime(inotify) {} }
    }

    deinit {
        close()
    }

    /// Ends the iteration (the pending `next()` returns nil) and releases the inotify descriptor.
    public func close() {
        core.withLock { $0.close() }
        readiness.cancel()
    }

    /// Watch counts and the kernel limit.
    public var status: Status {
        core.withLock { $0.status }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(watcher: self)
    }

    /// Pulls events; reading the descriptor happens here, in the consumer's task.
    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let watcher: InotifyWatcher

        /// The next event, or nil after ``InotifyWatcher/close()`` or when the task is cancelled.
        public mutating func next() async -> InboxEvent? {
            while true {
                if Task.isCancelled { return nil }
                let step = watcher.core.withLock { $0.step(now: .now) }
                switch step {
                case .event(let event): return event
                case .finished: return nil
                case .idle(let deadline, let drained):
                    if drained { watcher.readiness.drained() }
                    await watcher.readiness.wait(until: deadline)
                }
            }
        }
    }
}

/// The watcher's state; only touched under the `Mutex` of ``InotifyWatcher``.
final class InotifyWatcherCore {
    enum Step {
        case event(InboxEvent)
        /// Nothing to do until the descriptor is readable or `deadline` passes; `drained` says `read` saw `EAGAIN`.
        case idle(until: ContinuousClock.Instant?, drained: Bool)
        case finished
    }

    private enum ListingMode {
        /// A new (or newly watched) folder: report files as `.listed`, watch subfolders and list them too.
        case report
        /// A folder without a watch: report files as `.polled`; new subfolders are treated as new folders.
        case poll
    }

    private struct Listing {
        var relative: String
        var mode: ListingMode
    }

    private enum WatchResult {
        case added
        case limitReached
        case vanished
        case failed
    }

    /// Everything the watcher asks the kernel to report on a folder.
    private static let mask: Inotify.Events = [
        .closedWrite, .movedTo, .movedFrom, .created, .deleted, .modified, .attributesChanged, .deletedSelf,
        .movedSelf, .onlyDirectory, .doNotFollow, .excludeUnlinked,
    ]

    private static let bufferSize = 64 * 1024
    private static let listingChunk = 256

    private let inotify: Inotify
    private let inbox: String
    private let options: InotifyWatcher.Options
    private let logger: Logger
    private let maxUserWatches: Int?
    private let buffer: UnsafeMutableRawBufferPointer

    private var closed = false
    private var table = WatchTable()
    private var unwatched: Set<String> = []
    private var outbox: [InboxEvent] = []
    private var outboxHead = 0
    private var listings: [Listing] = []
    private var listingsHead = 0
    private var currentListing: (listing: Listing, stream: DirectoryStream)?
    private var inboxMissing = false
    private var nextInboxPoll: ContinuousClock.Instant?
    /// Device and inode of the watched inbox, and when to compare them with what its path names now: inotify says
    /// nothing when a parent folder of the inbox is renamed or the inbox is replaced under a mount.
    private var inboxIdentity: (device: UInt64, inode: UInt64)?
    /// The inbox, opened when its watches are set up: folders below it are listed and watched through it, never
    /// through a link.
    private var rootDirectory: Directory?
    private var nextInboxCheck: ContinuousClock.Instant?
    private var nextFallbackPoll: ContinuousClock.Instant?
    private var warnedAboutLimit = false
    /// The watch on the staging folder (``InotifyWatcher/Options/stagingFolder``), when it has one.
    private var stagingWatch: Int32?
    /// Whether to try watching the staging folder again (it did not exist, or was removed).
    private var stagingWatchWanted: Bool
    /// The cookies of the last renames out of the staging folder: a matching `IN_MOVED_TO` in the inbox is a file
    /// photodrop put back. A few are kept; most such renames go to the library or `Rejected/` and never match.
    private var stagingDepartures: [UInt32] = []
    /// A file's `IN_MOVED_FROM` that ended a read, held until the next read says whether its `IN_MOVED_TO` went into
    /// the staging folder (the kernel queues the two halves of a rename one after the other).
    private var heldDeparture: (cookie: UInt32, relative: String)?

    init(inotify: Inotify, inbox: String, options: InotifyWatcher.Options, logger: Logger) {
        self.inotify = inotify
        self.inbox = inbox
        self.options = options
        self.logger = logger
        self.maxUserWatches = Inotify.maximumWatchesPerUser
        self.buffer = .allocate(byteCount: InotifyWatcherCore.bufferSize, alignment: 8)
        self.stagingWatchWanted = options.stagingFolder != nil
        if setUpWatches() {
            logger.info(
                "watching the inbox",
                metadata: [
                    "inbox": .string(inbox), "folders": .count(table.count),
                    "max_user_watches": .string(maxUserWatches.map(String.init) ?? "unknown"),
                ])
            if let limit = maxUserWatches, table.count * 4 > limit * 3 {
                logger.warning(
                    "the inbox uses most of the inotify watch budget; raise fs.inotify.max_user_watches (e.g. `sysctl -w fs.inotify.max_user_watches=524288`)",
                    metadata: ["folders": .count(table.count), "max_user_watches": .count(limit)])
            }
            emit(.rescanNeeded(.startup))
        } else {
            logger.warning(
                "the inbox does not exist (yet); waiting for it to appear", metadata: ["inbox": .string(inbox)])
            inboxMissing = true
            nextInboxPoll = .now
        }
    }

    deinit {
        buffer.deallocate()
    }

    var status: InotifyWatcher.Status {
        InotifyWatcher.Status(
            watchedFolders: table.count, unwatchedFolders: unwatched.count, maxUserWatches: maxUserWatches,
            inboxPresent: !inboxMissing)
    }

    func close() {
        closed = true
        currentListing = nil
        listings.removeAll()
    }

    // MARK: - Stepping

    func step(now: ContinuousClock.Instant) -> Step {
        while true {
            if closed { return .finished }
            if let event = nextOutboxEvent() { return .event(event) }
            if inboxMissing {
                if let poll = nextInboxPoll, poll <= now {
                    pollForInbox(now: now)
                    continue
                }
                // Drain what is left in the queue (events of the old watches, ignored) so the wait can block.
                let records = readKernelEvents()
                if records < 0 { return .finished }
                return .idle(until: nextInboxPoll, drained: records == 0)
            }
            let records = readKernelEvents()
            if records > 0 {
                _ = continueListing()  // progress on listings even under a steady stream of events
                continue
            }
            if records < 0 { return .finished }
            if continueListing() { continue }
            if let poll = nextFallbackPoll, poll <= now {
                runFallbackPoll(now: now)
                continue
            }
            if let check = nextInboxCheck, check <= now {
                checkInboxIdentity(now: now)
                continue
            }
            let deadlines = [nextFallbackPoll, nextInboxCheck].compactMap { $0 }
            return .idle(until: deadlines.min(), drained: true)
        }
    }

    private func nextOutboxEvent() -> InboxEvent? {
        guard outboxHead < outbox.count else { return nil }
        let event = outbox[outboxHead]
        outboxHead += 1
        if outboxHead == outbox.count {
            outbox.removeAll(keepingCapacity: outbox.count <= 4096)
            outboxHead = 0
        }
        return event
    }

    private func emit(_ event: InboxEvent) {
        // The kernel merges identical consecutive events only while they sit in its queue; do the same for a
        // burst of IN_MODIFY within one read.
        if outboxHead < outbox.count, outbox.last == event { return }
        outbox.append(event)
    }

    /// Reads one batch: the number of records handled, 0 when drained (`EAGAIN`), -1 when the descriptor failed.
    private func readKernelEvents() -> Int {
        let count: Int
        do throws(SystemError) { count = try inotify.read(into: buffer) } catch {
            logger.error("reading inotify events failed; the watcher stops", metadata: ["error": .string(error.reason)])
            return -1
        }
        if count == 0 {
            releaseHeldDeparture()
            return 0
        }
        if stagingWatchWanted { watchStagingFolder() }
        let records = InotifyRecord.decode(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        if let held = heldDeparture {
            heldDeparture = nil
            if !Self.arrivesInStaging(held.cookie, records[...], staging: stagingWatch) { emit(.removed(held.relative)) }
        }
        for index in records.indices { handle(records[index], following: records[(index + 1)...]) }
        return max(records.count, 1)
    }

    /// A held `IN_MOVED_FROM` whose other half never came (the file went outside the inbox): reported now.
    private func releaseHeldDeparture() {
        guard let held = heldDeparture else { return }
        heldDeparture = nil
        emit(.removed(held.relative))
    }

    /// Whether the rename with `cookie` put its file into the staging folder, judged by the records that follow its
    /// `IN_MOVED_FROM` (the `IN_MOVED_TO` comes next, or a few records later when other events slipped between).
    private static func arrivesInStaging(
        _ cookie: UInt32, _ following: ArraySlice<InotifyRecord>, staging: Int32?
    ) -> Bool {
        guard let staging, cookie != 0 else { return false }
        return following.prefix(8).contains {
            $0.watch == staging && $0.cookie == cookie && Inotify.Events(rawValue: $0.mask).contains(.movedTo)
        }
    }

    // MARK: - The staging folder

    /// Watches the staging folder for renames in and out (nothing else), if it exists.
    private func watchStagingFolder() {
        guard let relative = options.stagingFolder, let root = rootDirectory else { return }
        guard let folder = try? root.directory(relative),
            let watch = try? inotify.addWatch(folder, for: [.movedTo, .movedFrom, .onlyDirectory])
        else { return }
        stagingWatch = watch
        stagingWatchWanted = false
    }

    /// A rename into or out of the staging folder: photodrop's own (only its user may enter it).
    private func handleStaging(_ record: InotifyRecord) {
        let mask = Inotify.Events(rawValue: record.mask)
        if mask.contains(.ignored) {
            // Removed (a recreated inbox): watched again once the claim journal makes it anew.
            stagingWatch = nil
            stagingWatchWanted = true
        } else if mask.contains(.movedFrom) && record.cookie != 0 {
            if stagingDepartures.count >= 64 { stagingDepartures.removeFirst(32) }
            stagingDepartures.append(record.cookie)
        }
    }

    // MARK: - Events

    private func handle(_ record: InotifyRecord, following: ArraySlice<InotifyRecord>) {
        let mask = Inotify.Events(rawValue: record.mask)
        if mask.contains(.queueOverflowed) {
            handleOverflow()
            return
        }
        if record.watch == stagingWatch {
            handleStaging(record)
            return
        }
        guard let directory = table.path(for: record.watch) else { return }  // a watch we already dropped
        if mask.contains(.ignored) {
            table.remove(watch: record.watch)
            if directory.isEmpty { inboxGone() }
            return
        }
        if record.name.isEmpty {
            if directory.isEmpty && !mask.isDisjoint(with: [.deletedSelf, .movedSelf, .unmounted]) {
                inboxGone()
            }
            // A subfolder's own DELETE_SELF/MOVE_SELF is handled through its parent's DELETE/MOVED_FROM.
            return
        }
        let relative = directory.isEmpty ? record.name : directory + "/" + record.name
        if mask.contains(.isDirectory) {
            handleDirectory(mask: mask, name: record.name, relative: relative)
            return
        }
        if options.ignore.skipsFile(named: record.name, relativePath: relative) { return }
        if mask.contains(.movedFrom), stagingWatch != nil, record.cookie != 0 {
            // photodrop's own claim (into the staging folder) is not news; a rename elsewhere is a removal.
            if following.isEmpty {
                heldDeparture = (record.cookie, relative)
            } else if !Self.arrivesInStaging(record.cookie, following, staging: stagingWatch) {
                emit(.removed(relative))
            }
        } else if !mask.isDisjoint(with: [.movedFrom, .deleted]) {
            emit(.removed(relative))
        } else if mask.contains(.closedWrite) {
            emit(.file(relative, .closedWrite))
        } else if mask.contains(.movedTo) {
            // A file photodrop put back from the staging folder is not news either.
            if let index = stagingDepartures.lastIndex(of: record.cookie), record.cookie != 0 {
                stagingDepartures.remove(at: index)
                return
            }
            emit(.file(relative, .movedIn))
        } else if mask.contains(.created) {
            emit(.file(relative, .created))
        } else if mask.contains(.modified) {
            emit(.file(relative, .modified))
        } else if mask.contains(.attributesChanged) {
            emit(.file(relative, .attributesChanged))
        }
    }

    private func handleDirectory(mask: Inotify.Events, name: String, relative: String) {
        if !mask.isDisjoint(with: [.created, .movedTo]) {
            if options.ignore.skipsDirectory(named: name, relativePath: relative) { return }
            newDirectory(relative)
        } else if !mask.isDisjoint(with: [.deleted, .movedFrom]) {
            forgetDirectory(relative)
            emit(.directoryRemoved(relative))
        } else if mask.contains(.attributesChanged), table.watch(for: relative) == nil, !unwatched.contains(relative),
            !options.ignore.skipsDirectory(named: name, relativePath: relative)
        {
            // A folder that could not be watched (no permission) may be readable now: watch it, list it, and have the
            // inbox scanned again so that its files are taken and its health problem is cleared.
            if addWatch(relative) == .added {
                enqueueListing(Listing(relative: relative, mode: .report))
                emit(.rescanNeeded(.folderReadable))
            }
        }
    }

    /// Watch first, then list: a file created between the two is reported twice (harmless), never not at all.
    private func newDirectory(_ relative: String) {
        switch addWatch(relative) {
        case .added: enqueueListing(Listing(relative: relative, mode: .report))
        case .limitReached: enqueueListing(Listing(relative: relative, mode: .poll))
        case .vanished, .failed: break
        }
    }

    private func forgetDirectory(_ relative: String) {
        for watch in table.removeSubtree(relative) { inotify.removeWatch(watch) }
        let prefix = relative + "/"
        unwatched = unwatched.filter { $0 != relative && !$0.hasPrefix(prefix) }
        if let current = currentListing,
            current.listing.relative == relative || current.listing.relative.hasPrefix(prefix)
        {
            currentListing = nil
        }
        // Queued listings of the folder fail harmlessly (ENOENT) or list a folder recreated under the same name.
    }

    private func handleOverflow() {
        logger.warning("inotify queue overflow; rebuilding the watches and rescanning the inbox")
        rebuildWatches()
        if !inboxMissing { emit(.rescanNeeded(.overflow)) }
    }

    private func inboxGone() {
        guard !inboxMissing else { return }
        logger.warning("the inbox folder disappeared; waiting for it to come back", metadata: ["inbox": .string(inbox)])
        removeAllWatches()
        inboxMissing = true
        nextInboxPoll = .now + options.inboxPollInterval
        nextInboxCheck = nil
        emit(.directoryRemoved(""))
    }

    private func checkInboxIdentity(now: ContinuousClock.Instant) {
        let info = try? FileSystem.status(atPath: inbox)
        if info?.isDirectory != true
            || inboxIdentity.map({ $0.device != info?.node.device || $0.inode != info?.node.inode }) ?? true
        {
            inboxGone()
        } else {
            nextInboxCheck = now + options.inboxPollInterval
        }
    }

    private func pollForInbox(now: ContinuousClock.Instant) {
        if setUpWatches() {
            inboxMissing = false
            nextInboxPoll = nil
            logger.info("the inbox is back; rescanning it", metadata: ["inbox": .string(inbox), "folders": .count(table.count)])
            emit(.rescanNeeded(.inboxRecreated))
        } else {
            nextInboxPoll = now + options.inboxPollInterval
        }
    }

    private func rebuildWatches() {
        removeAllWatches()
        if !setUpWatches() {
            inboxMissing = true
            nextInboxPoll = .now + options.inboxPollInterval
            emit(.directoryRemoved(""))
        }
    }

    private func removeAllWatches() {
        for watch in table.removeSubtree("") { inotify.removeWatch(watch) }
        if let watch = stagingWatch { inotify.removeWatch(watch) }
        stagingWatch = nil
        stagingWatchWanted = options.stagingFolder != nil
        stagingDepartures.removeAll()
        releaseHeldDeparture()
        unwatched.removeAll()
        currentListing = nil
        listings.removeAll()
        listingsHead = 0
        nextFallbackPoll = nil
    }

    // MARK: - Watches

    /// Watches the inbox and every folder below it (no file events: the caller's rescan lists files). Returns false
    /// when the inbox itself cannot be watched (missing, or not a folder).
    private func setUpWatches() -> Bool {
        guard addWatch("") == .added else { return false }
        rootDirectory = try? Directory.open(atPath: inbox)
        if stagingWatchWanted { watchStagingFolder() }
        if let info = try? FileSystem.status(atPath: inbox) {
            inboxIdentity = (info.node.device, info.node.inode)
            nextInboxCheck = .now + options.inboxPollInterval
        }
        var queue = [""]
        var head = 0
        while head < queue.count {
            let relative = queue[head]
            head += 1
            guard let stream = try? rootDirectory?.directory(relative).entries() else { continue }
            while let entry = try? stream.next() {
                guard entry.type == .directory else { continue }
                let child = relative.isEmpty ? entry.name : relative + "/" + entry.name
                if options.ignore.skipsDirectory(named: entry.name, relativePath: child) { continue }
                switch addWatch(child) {
                case .added, .limitReached: queue.append(child)
                case .vanished, .failed: break
                }
            }
        }
        return true
    }

    private func addWatch(_ relative: String) -> WatchResult {
        let path = Path.join(inbox, relative)
        if let limit = options.simulatedWatchLimit, table.count >= limit, table.watch(for: relative) == nil {
            return watchLimitReached(relative, limit: limit)
        }
        // The inbox itself may be a symbolic link to the real folder (followed); folders inside are never followed:
        // each is opened below the inbox's descriptor (no link on the way) and watched through /proc/self/fd.
        let watching = InotifyWatcherCore.mask.subtracting(.doNotFollow)
        let added: Result<Int32, SystemError>
        if relative.isEmpty {
            added = Result { () throws(SystemError) in try inotify.addWatch(path, for: watching) }
        } else {
            let folder: Directory
            do {
                guard let root = rootDirectory else { return .vanished }
                folder = try root.directory(relative)
            } catch {
                switch error.code {
                case Errno.noSuchFileOrDirectory, Errno.notDirectory, Errno.tooManySymbolicLinkLevels: return .vanished
                default:
                    logger.warning(
                        "cannot watch a folder; files in it are not seen until the next rescan",
                        metadata: ["path": .string(path), "error": .string(error.description)])
                    return .failed
                }
            }
            added = Result { () throws(SystemError) in try inotify.addWatch(folder, for: watching) }
        }
        let code: Errno
        switch added {
        case .success(let watch):
            table.insert(watch: watch, path: relative)
            unwatched.remove(relative)
            return .added
        case .failure(let error): code = error.code
        }
        switch code {
        case Errno.noSpace: return watchLimitReached(relative, limit: maxUserWatches)
        case Errno.noSuchFileOrDirectory, Errno.notDirectory: return .vanished
        default:
            logger.warning(
                "cannot watch a folder; files in it are not seen until the next rescan",
                metadata: ["path": .string(path), "error": .string(SystemError.describe(code))])
            return .failed
        }
    }

    private func watchLimitReached(_ relative: String, limit: Int?) -> WatchResult {
        unwatched.insert(relative)
        options.health?.watchLimit(unwatched: unwatched.count)
        if nextFallbackPoll == nil { nextFallbackPoll = .now + options.fallbackRescanInterval }
        if !warnedAboutLimit {
            warnedAboutLimit = true
            let seconds = options.fallbackRescanInterval.components.seconds
            logger.warning(
                "inotify watch limit reached (fs.inotify.max_user_watches = \(limit.map(String.init) ?? "unknown")): folders without a watch are rescanned every \(seconds) s instead. Raise the limit, e.g. `sysctl -w fs.inotify.max_user_watches=524288` and a line in /etc/sysctl.d/, then photodrop picks it up by itself",
                metadata: ["first_unwatched": .string(relative.isEmpty ? "." : relative), "watched": .count(table.count)])
        }
        return .limitReached
    }

    private func runFallbackPoll(now: ContinuousClock.Instant) {
        nextFallbackPoll = nil
        var limitStillReached = false
        for relative in unwatched.sorted() {
            if !limitStillReached {
                switch addWatch(relative) {
                case .added:
                    enqueueListing(Listing(relative: relative, mode: .report))
                    continue
                case .limitReached: limitStillReached = true
                case .vanished, .failed:
                    unwatched.remove(relative)
                    continue
                }
            }
            enqueueListing(Listing(relative: relative, mode: .poll))
        }
        options.health?.watchLimit(unwatched: unwatched.count)
        if unwatched.isEmpty {
            if warnedAboutLimit {
                logger.info("every inbox folder has an inotify watch again", metadata: ["watched": .count(table.count)])
                warnedAboutLimit = false
            }
        } else {
            nextFallbackPoll = now + options.fallbackRescanInterval
        }
    }

    // MARK: - Listings

    private func enqueueListing(_ listing: Listing) {
        listings.append(listing)
    }

    /// Reads up to one chunk of the current listing; false when there is nothing to list.
    private func continueListing() -> Bool {
        if currentListing == nil {
            guard listingsHead < listings.count else {
                if !listings.isEmpty {
                    listings.removeAll(keepingCapacity: false)
                    listingsHead = 0
                }
                return false
            }
            let listing = listings[listingsHead]
            listingsHead += 1
            guard let stream = try? rootDirectory?.directory(listing.relative).entries() else {
                return true  // gone again; its removal event tells the consumer
            }
            currentListing = (listing, stream)
        }
        guard let (listing, stream) = currentListing else { return false }
        for _ in 0..<InotifyWatcherCore.listingChunk {
            guard let entry = try? stream.next() else {
                currentListing = nil
                return true
            }
            let child = listing.relative.isEmpty ? entry.name : listing.relative + "/" + entry.name
            switch entry.type {
            case .directory:
                if options.ignore.skipsDirectory(named: entry.name, relativePath: child) { continue }
                // Known folders were listed when they got their watch, or are polled on their own.
                if table.watch(for: child) != nil || unwatched.contains(child) { continue }
                newDirectory(child)
            case .regular:
                if options.ignore.skipsFile(named: entry.name, relativePath: child) { continue }
                emit(.file(child, listing.mode == .report ? .listed : .polled))
            case .symbolicLink, .other:
                continue
            }
        }
        return true
    }
}
