import PhotoImageManager
import PhotoCatalog
import Rendering
import PhotodropTelemetry

/// What `photodrop watch` reports to Prometheus, taken at one moment (``WatchService/metrics()``), and its text.
public struct WatchMetrics: Sendable {
    /// Outcomes since the daemon started.
    public var counts: IngestStatistics.Counts
    /// Rejections by reason, retries, rescans, latencies.
    public var details: IngestStatistics.Details
    /// Files seen in the inbox and not yet taken.
    public var waiting: Int
    /// Files taken out of the inbox and not finished (the claim journal's entries).
    public var claimed: Int
    /// How long the file waiting longest has waited.
    var oldestWaitingAge: Duration?
    /// The inbox watcher's use of inotify.
    public var watches: InotifyWatcher.Status?
    /// The library's counts and size (nil when they could not be read).
    public var library: LibraryStatistics?
    /// Problems `photodrop status` reports (by code).
    public var problems: [String]
    /// Whether the daemon runs (`photodrop_up`); the last write on stopping says it does not.
    public var running = true
    /// The decode memory budget of the daemon's render helpers.
    public var decodeBudget: DecodeBudget = .shared

    /// The Prometheus text format.
    public var text: String {
        var out = PrometheusText()
        out.family("photodrop_files_total", type: "counter", help: "Files finished since photodrop watch started, by outcome.")
        let outcomes: [(String, Int)] = [
            ("stored", counts.imported), ("duplicate", counts.duplicates), ("attached", counts.attached),
            ("rejected", counts.rejected), ("failed", counts.failed),
        ]
        for (outcome, count) in outcomes { out.sample("photodrop_files_total", ["outcome": outcome], Double(count)) }
        out.family("photodrop_stored_files_total", type: "counter", help: "New assets since photodrop watch started, by kind.")
        for (kind, count) in [("photo", counts.photos), ("gif", counts.gifs), ("video", counts.videos)] {
            out.sample("photodrop_stored_files_total", ["kind": kind], Double(count))
        }
        out.family("photodrop_rejected_files_total", type: "counter", help: "Rejected files by reason.")
        for (reason, count) in details.rejectedByReason.sorted(by: { $0.key < $1.key }) {
            out.sample("photodrop_rejected_files_total", ["reason": reason], Double(count))
        }
        out.single(
            "photodrop_retried_files_total", type: "counter",
            help: "Files left in the inbox after a failure, to be tried again with back-off.", Double(details.retried))
        out.single(
            "photodrop_files_left_to_other_nodes_total", type: "counter",
            help: "Settled files left for a moment to another node sharing the inbox, which takes them first.",
            Double(details.leftToOtherNodes))
        out.single(
            "photodrop_claims_lost_total", type: "counter",
            help: "Files a claim set out to take that another node (or a user) took out of the inbox first.",
            Double(details.claimsLost))
        out.single(
            "photodrop_files_bytes_total", type: "counter", help: "Bytes of all files finished (every outcome).",
            Double(counts.bytes))
        out.single(
            "photodrop_stored_bytes_total", type: "counter",
            help: "Bytes stored into the library (new assets and attached resources; duplicates not counted).",
            Double(details.storedBytes))
        out.single("photodrop_files_waiting", type: "gauge", help: "Files seen in the inbox, not yet taken.", Double(waiting))
        out.single(
            "photodrop_files_claimed", type: "gauge", help: "Files taken out of the inbox and not yet finished.",
            Double(claimed))
        out.single(
            "photodrop_oldest_waiting_file_age_seconds", type: "gauge",
            help: "How long the file waiting longest in the inbox has waited (0 when none waits).",
            oldestWaitingAge.map { Double($0.components.seconds) + Double($0.components.attoseconds) * 1e-18 } ?? 0)
        out.histogram(
            "photodrop_commit_duration_seconds", help: "Time of one group commit into the library.",
            details.commitLatency)
        out.histogram(
            "photodrop_file_duration_seconds", help: "Time from taking a file out of the inbox to its outcome.",
            details.fileLatency)
        if let watches {
            out.single(
                "photodrop_inotify_watches", type: "gauge", help: "Inbox folders with an inotify watch.",
                Double(watches.watchedFolders))
            out.single(
                "photodrop_inotify_unwatched_folders", type: "gauge",
                help: "Inbox folders without a watch (the limit was reached); they are rescanned periodically.",
                Double(watches.unwatchedFolders))
            if let limit = watches.maxUserWatches {
                out.single(
                    "photodrop_inotify_watches_limit", type: "gauge",
                    help: "fs.inotify.max_user_watches (shared by every inotify user of the account).", Double(limit))
            }
        }
        out.family("photodrop_inbox_rescans_total", type: "counter", help: "Full rescans of the inbox, by reason.")
        for reason in ["startup", "overflow", "inboxRecreated", "folderReadable"] {
            out.sample("photodrop_inbox_rescans_total", ["reason": reason], Double(details.rescans[reason] ?? 0))
        }
        out.single(
            "photodrop_inotify_overflows_total", type: "counter",
            help: "Times the kernel's inotify queue overflowed (each one causes a rescan).",
            Double(details.rescans["overflow"] ?? 0))
        if let library {
            out.family("photodrop_library_assets", type: "gauge", help: "Assets in the library (not deleted), by kind.")
            for (kind, count) in [("photo", library.photoCount), ("gif", library.gifCount), ("video", library.videoCount)] {
                out.sample("photodrop_library_assets", ["kind": kind], Double(count))
            }
            out.single(
                "photodrop_library_recently_deleted_assets", type: "gauge", help: "Assets in Recently Deleted.",
                Double(library.recentlyDeletedCount))
            out.single("photodrop_library_albums", type: "gauge", help: "Albums in the library.", Double(library.albumCount))
            out.single(
                "photodrop_library_originals_bytes", type: "gauge", help: "Size of the stored originals.",
                Double(library.originalBytes))
        }
        out.family("photodrop_health_problems", type: "gauge", help: "Problems photodrop status reports, by code (1 = present).")
        // The problems a running daemon finds itself (the others are about a daemon that does not run, or is seen from
        // outside: `status` reports them).
        let own: [HealthProblem.Code] = [
            .stuckFiles, .libraryLocked, .catalogUnreachable, .rejectedUnreadable, .inboxUnreadable, .watchLimit,
        ]
        for code in own {
            out.sample("photodrop_health_problems", ["code": code.rawValue], problems.contains(code.rawValue) ? 1 : 0)
        }
        out.decodeBudget(decodeBudget, prefix: "photodrop_")
        out.single(
            "photodrop_up", type: "gauge", help: "1 while photodrop watch runs and writes its metrics.", running ? 1 : 0)
        return out.text
    }
}
