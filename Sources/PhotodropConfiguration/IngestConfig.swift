import FoundationEssentials
import MediaProbe
import PhotodropSystem
import Rendering
import PhotodropTelemetry

/// photodrop's settings, as read from `config.json` (every key is in the README's configuration table).
///
/// Every field has a default, so an empty object `{}` (or no file at all) is a valid configuration. Paths are
/// absolute and normalised once loaded; relative paths in the file are resolved against the folder that holds the
/// file. Load with ``load(explicitPath:currentDirectory:)`` (the command line's rules) or
/// ``load(contentsOf:)``; both validate everything and throw one ``ConfigError`` listing every problem.
public struct IngestConfig: Sendable, Equatable {
    /// The codec lists that decide which videos an Apple device plays (`video` in the file).
    public struct Video: Sendable, Equatable {
        /// Accepted video sample-entry codes (`avc1`, `hvc1`, …).
        public var videoCodecs: [FourCC]
        /// Accepted audio sample-entry codes (`mp4a`, `ac-3`, …).
        public var audioCodecs: [FourCC]

        public init(videoCodecs: [FourCC], audioCodecs: [FourCC]) {
            self.videoCodecs = videoCodecs
            self.audioCodecs = audioCodecs
        }

        /// H.264, HEVC `hvc1`, Dolby Vision `dvh1`, MPEG-4 Part 2, Motion JPEG and ProRes.
        public static let defaultVideoCodecs = codes(
            "avc1", "avc3", "hvc1", "dvh1", "mp4v", "jpeg", "mjpa", "mjpb",
            "apch", "apcn", "apcs", "apco", "ap4h", "ap4x")
        /// AAC, AC-3, E-AC-3, ALAC, the LPCM variants and IMA4.
        public static let defaultAudioCodecs = codes(
            "mp4a", "ac-3", "ec-3", "alac", "lpcm", "twos", "sowt", "in24", "in32", "fl32", "fl64", "ulaw", "alaw",
            "ima4")

        /// The lists of the corpus contract (`corpus/README.md`).
        public static let defaults = Video(videoCodecs: defaultVideoCodecs, audioCodecs: defaultAudioCodecs)

        private static func codes(_ texts: String...) -> [FourCC] { texts.map { FourCC($0)! } }
    }

    /// How and how much the daemon logs (`log` in the file).
    public typealias Log = LogSettings

    /// The file the settings came from (absolute), or nil when no file was read and everything is a default.
    public var sourceFile: String?
    /// The folder relative paths were resolved against: the config file's folder, else the current directory.
    public var baseDirectory: String
    /// The library folder (`library.sqlite`, `originals/`). Default `Library`.
    public var library: String
    /// Where the catalog is (`catalog`): SQLite in the library folder unless `catalog.postgres` is set.
    public var catalog: CatalogSettings
    /// This node's short id (`node`): names its claimed folder, its watch lock and its row in the nodes table, so that
    /// several photodrop processes can share a library and an inbox. Default: the host name.
    public var node: String
    /// Rescan the whole inbox every ``rescanSeconds`` wherever it is (`poll`); without it, only an inbox on a network
    /// file system is (inotify does not see what other machines write there). Default false.
    public var poll: Bool
    /// How often a polled inbox is rescanned, in seconds (`rescanSeconds`). Default 10.
    public var rescanSeconds: Int
    /// How long a node's claims last without a heartbeat before another node sharing its inbox takes its claimed files
    /// over, in seconds by the database's clock (`claimLeaseSeconds`; PostgreSQL catalogs only). Default 120.
    public var claimLeaseSeconds: Int
    /// The watched inbox. Default `Inbox`.
    public var inbox: String
    /// Where rejected files go, as `Rejected/<Album>/<name>`. Default `Rejected`.
    public var rejected: String
    /// The group that may read the library (its folders, database and originals); nil: only the daemon's own user
    /// and primary group. Default nil.
    public var libraryGroup: LibraryGroup?
    /// Worker tasks as written in the file; 0 means one per core (see ``workerCount``). Default 0, at most 128.
    public var workers: Int
    /// How long a file must stay unchanged after its last close, rename or change before it is taken. Default 2000.
    public var settleMilliseconds: Int
    /// How long a file that probes as truncated may wait for its upload to resume before it is rejected as
    /// `corrupt`. Default 300.
    public var incompleteGraceSeconds: Int
    /// Extra glob patterns (fnmatch) of names never taken; see ``IgnoreRules``. Default empty.
    public var ignore: [String]
    /// How long a file that may have a partner (a Live Photo half, a RAW or JPEG of a pair, an edit, a sidecar) waits
    /// for it before it is committed alone. Default 10, at most 300; 0 turns pairing off.
    public var pairWaitSeconds: Int
    /// Whether RAW and JPEG/HEIC files of one shot become one asset. Default ``RawAndJpegPolicy/pair``.
    public var rawAndJpeg: RawAndJpegPolicy
    /// When new assets get their thumbnail and preview. Default ``DerivativePolicy/ingest``.
    public var derivatives: DerivativePolicy
    /// The memory, in MiB, that the decodes of one photodrop process (its render helpers) may use at once; 0 (the
    /// default) is half of what the process may use: its cgroup's limit (`MemoryMax=`), else the machine's memory.
    public var decodeMemoryMiB: Int
    /// ``decodeMemoryMiB`` in bytes, the automatic value worked out.
    public var decodeMemoryBytes: Int64 {
        decodeMemoryMiB > 0 ? Int64(decodeMemoryMiB) << 20 : DecodeBudget.automaticBytes()
    }
    /// How inbox folders become albums and folders. Default ``AlbumMode/firstLevel``.
    public var albums: AlbumMode
    /// What happens to a dropped duplicate. Default ``DuplicatePolicy/addToAlbum``.
    public var duplicates: DuplicatePolicy
    /// Days an asset stays in Recently Deleted before the daemon purges it (as Apple Photos does after 30); 0 keeps
    /// deleted assets until `photodrop trash empty`. Default 30.
    public var trashDays: Int
    /// Video acceptance lists.
    public var video: Video
    /// Logging settings.
    public var log: Log
    /// How `photodrop serve` listens and whom it answers.
    public var serve: ServeSettings
    /// Where `watch` writes its Prometheus metrics.
    public var metrics: MetricsSettings

    /// The defaults, with the three folders resolved against `baseDirectory`.
    public init(baseDirectory: String) {
        let base = Path.normalize(baseDirectory)
        self.sourceFile = nil
        self.baseDirectory = base
        self.library = Path.resolve("Library", against: base)
        self.inbox = Path.resolve("Inbox", against: base)
        self.rejected = Path.resolve("Rejected", against: base)
        self.libraryGroup = nil
        self.catalog = CatalogSettings()
        self.node = IngestConfig.defaultNode
        self.poll = false
        self.rescanSeconds = 10
        self.claimLeaseSeconds = 120
        self.workers = 0
        self.settleMilliseconds = 2000
        self.incompleteGraceSeconds = 300
        self.ignore = []
        self.duplicates = .addToAlbum
        self.albums = .firstLevel
        self.pairWaitSeconds = 10
        self.rawAndJpeg = .pair
        self.derivatives = .ingest
        self.decodeMemoryMiB = 0
        self.trashDays = 30
        self.video = .defaults
        self.log = Log()
        self.serve = ServeSettings()
        self.metrics = MetricsSettings()
    }

    /// The default ``node``: the host name, cut at its first dot, as far as it is a valid node id (else `node`).
    public static var defaultNode: String {
        let host = String(SystemProcess.hostName.prefix { $0 != "." })
        return isValidNode(host) ? host : "node"
    }

    /// Allowed node ids: 1 to 32 ASCII letters, digits, `-` and `_` (a folder name on every file system, and short in
    /// logs).
    public static func isValidNode(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 32
            && text.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    /// The number of worker tasks to run: ``workers``, or the number of active cores when it is 0.
    public var workerCount: Int { workers == 0 ? max(1, ProcessInfo.processInfo.activeProcessorCount) : workers }

    /// How long an asset stays in Recently Deleted before the daemon purges it; nil when it never does.
    public var trashRetention: Duration? { trashDays > 0 ? .seconds(trashDays * 86_400) : nil }

    /// ``settleMilliseconds`` as a `Duration`.
    public var settle: Duration { .milliseconds(settleMilliseconds) }

    /// ``incompleteGraceSeconds`` as a `Duration`.
    public var incompleteGrace: Duration { .seconds(incompleteGraceSeconds) }

    /// The name filter the watcher, the scanner and the settle logic share: built-in temp names plus ``ignore``.
    public var ignoreRules: IgnoreRules { IgnoreRules(patterns: ignore) }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A)
    }
}
