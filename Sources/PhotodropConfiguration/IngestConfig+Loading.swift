import FoundationEssentials
import MediaProbe
import PhotodropSystem
import PhotodropTelemetry

extension IngestConfig {
    /// The file name looked for in the current directory when no `--config` is given.
    public static let defaultFileName = "config.json"
    /// Allowed values of `workers`.
    public static let workersRange = 0...128
    /// Allowed values of `settleMilliseconds` (up to one hour).
    public static let settleMillisecondsRange = 0...3_600_000
    /// Allowed values of `incompleteGraceSeconds` (up to one week).
    public static let incompleteGraceSecondsRange = 0...604_800
    /// Allowed values of `pairWaitSeconds` (0 turns pairing off).
    public static let pairWaitSecondsRange = 0...300
    /// Allowed values of `trashDays` (up to ten years; 0 = never purge).
    public static let trashDaysRange = 0...3_650
    /// Allowed values of `decodeMemoryMiB` (0 = automatic: half of what the process may use; else 64 MiB to 1 TiB).
    public static let decodeMemoryMiBRange = 0...1_048_576
    /// Config files larger than this are refused before parsing.
    static let maximumFileSize = 1 << 20

    static let topLevelKeys = [
        "library", "inbox", "rejected", "libraryGroup", "workers", "settleMilliseconds", "incompleteGraceSeconds",
        "ignore", "duplicates", "albums", "pairWaitSeconds", "rawAndJpeg", "derivatives", "decodeMemoryMiB", "trashDays",
        "video", "log", "serve", "metrics", "catalog", "node", "poll", "rescanSeconds",
        "claimLeaseSeconds",
    ]
    /// Allowed values of `rescanSeconds` (up to a day).
    public static let rescanSecondsRange = 1...86_400
    /// Allowed values of `claimLeaseSeconds`: well above the 5 s heartbeat, at most an hour.
    public static let claimLeaseSecondsRange = 15...3_600
    static let catalogKeys = ["postgres", "passwordFile"]
    static let videoKeys = ["videoCodecs", "audioCodecs"]
    static let logKeys = ["format", "level"]
    static let serveKeys = [
        "listen", "token", "tokenFile", "tls", "behindProxy", "trustedProxies", "maxUploadBytes", "pictureCacheMiB",
    ]
    static let tlsKeys = ["certificate", "key"]
    static let metricsKeys = ["textfile", "intervalSeconds"]

    /// Loads the configuration the way the command line does.
    ///
    /// - With `explicitPath` (the user's `--config PATH`): that file must exist; a relative path is relative to
    ///   `currentDirectory` (default: the process's working directory).
    /// - Without it: `currentDirectory/config.json` is read when it exists; when it does not, the built-in defaults
    ///   apply, with `Library`, `Inbox` and `Rejected` in `currentDirectory`. A `config.json` that exists but cannot
    ///   be read or is invalid is an error, never silently replaced by defaults.
    public static func load(
        explicitPath: String?, currentDirectory: String? = nil
    ) throws(ConfigError) -> IngestConfig {
        let currentDirectory = currentDirectory ?? Path.currentDirectory()
        if let explicitPath {
            return try load(contentsOf: Path.resolve(explicitPath, against: currentDirectory))
        }
        let candidate = Path.join(Path.normalize(currentDirectory), defaultFileName)
        if case .success(nil) = Result(catching: { () throws(SystemError) in try FileSystem.linkStatus(atPath: candidate) }) {
            return IngestConfig(baseDirectory: currentDirectory)
        }
        return try load(contentsOf: candidate)
    }

    /// Reads and validates one configuration file; relative paths in it resolve against its folder.
    public static func load(contentsOf path: String) throws(ConfigError) -> IngestConfig {
        let absolute = Path.resolve(path, against: Path.currentDirectory())
        let bytes: [UInt8]
        do {
            bytes = try readConfigFile(absolute)
        } catch {
            let hint =
                error.code == Errno.noSuchFileOrDirectory
                ? "the configuration file does not exist" : "cannot read the configuration file: \(error.reason)"
            throw ConfigError(file: absolute, problems: [.init(key: nil, position: nil, message: hint)])
        }
        if bytes.count > maximumFileSize {
            throw ConfigError(
                file: absolute,
                problems: [
                    .init(key: nil, position: nil, message: "the file is larger than 1 MiB; is this the right file?")
                ])
        }
        return try parse(bytes, file: absolute, baseDirectory: Path.parent(of: absolute))
    }

    /// Validates configuration text; `file` is only used in messages, `baseDirectory` resolves relative paths.
    public static func parse(_ bytes: [UInt8], file: String, baseDirectory: String) throws(ConfigError) -> IngestConfig
    {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw ConfigError(
                file: file,
                problems: [.init(key: nil, position: error.position, message: "invalid JSON: \(error.message)")])
        }
        var validator = ConfigValidator()
        var config = IngestConfig(baseDirectory: baseDirectory)
        config.sourceFile = file
        validator.apply(document, to: &config)
        if !validator.problems.isEmpty {
            // File order reads best; problems without a position (none today) go last.
            let sorted = validator.problems.enumerated().sorted { a, b in
                let pa = a.element.position.map { ($0.line, $0.column) } ?? (Int.max, Int.max)
                let pb = b.element.position.map { ($0.line, $0.column) } ?? (Int.max, Int.max)
                return pa != pb ? pa < pb : a.offset < b.offset
            }.map(\.element)
            throw ConfigError(file: file, problems: sorted)
        }
        return config
    }

    private static func readConfigFile(_ path: String) throws(SystemError) -> [UInt8] {
        let file = try FileSystem.open(path, .readOnly)
        if try file.status(path: path).isDirectory {
            throw SystemError(code: Errno.isDirectory, call: "read", path: path)
        }
        return try file.readToEnd(limit: maximumFileSize, path: path)
    }
}

/// Walks the parsed document, fills an ``IngestConfig`` and collects every problem it finds.
struct ConfigValidator {
    var problems: [ConfigError.Problem] = []

    mutating func apply(_ document: JSONValue, to config: inout IngestConfig) {
        guard case .object(let members) = document.kind else {
            fail(
                nil, document.position,
                "the file must contain one JSON object ({ … }); found \(document.typeDescription)")
            return
        }
        checkKeys(members, allowed: IngestConfig.topLevelKeys, parent: nil)
        let base = config.baseDirectory
        for member in members {
            let key = member.key
            let value = member.value
            switch key {
            case "library": if let path = path(key, value, base: base) { config.library = path }
            case "inbox": if let path = path(key, value, base: base) { config.inbox = path }
            case "rejected": if let path = path(key, value, base: base) { config.rejected = path }
            case "libraryGroup": if let group = group(key, value) { config.libraryGroup = group }
            case "workers":
                if let number = integer(
                    key, value, range: IngestConfig.workersRange, meaning: "worker tasks (0 = one per core)")
                {
                    config.workers = number
                }
            case "settleMilliseconds":
                if let number = integer(
                    key, value, range: IngestConfig.settleMillisecondsRange, meaning: "milliseconds (0 = no delay)")
                {
                    config.settleMilliseconds = number
                }
            case "incompleteGraceSeconds":
                if let number = integer(key, value, range: IngestConfig.incompleteGraceSecondsRange, meaning: "seconds")
                {
                    config.incompleteGraceSeconds = number
                }
            case "trashDays":
                if let number = integer(
                    key, value, range: IngestConfig.trashDaysRange,
                    meaning: "days in Recently Deleted before the daemon purges (0 = never)")
                {
                    config.trashDays = number
                }
            case "ignore": if let patterns = globList(key, value) { config.ignore = patterns }
            case "duplicates": if let policy = choice(key, value, DuplicatePolicy.self) { config.duplicates = policy }
            case "albums": if let mode = choice(key, value, AlbumMode.self) { config.albums = mode }
            case "rawAndJpeg": if let policy = choice(key, value, RawAndJpegPolicy.self) { config.rawAndJpeg = policy }
            case "derivatives":
                if let policy = choice(key, value, DerivativePolicy.self) { config.derivatives = policy }
            case "decodeMemoryMiB":
                if let number = integer(
                    key, value, range: IngestConfig.decodeMemoryMiBRange,
                    meaning: "MiB that decodes for thumbnails and previews may use at once (0 = half of this machine's "
                        + "or cgroup's memory)")
                {
                    if number > 0 && number < 64 {
                        fail(key, value.position, "must be 0 (automatic) or at least 64 MiB; found \(number)")
                    } else {
                        config.decodeMemoryMiB = number
                    }
                }
            case "pairWaitSeconds":
                if let number = integer(
                    key, value, range: IngestConfig.pairWaitSecondsRange,
                    meaning: "seconds a file that may have a partner waits for it (0 = no pairing)")
                {
                    config.pairWaitSeconds = number
                }
            case "video": applyVideo(value, to: &config.video)
            case "log": applyLog(value, to: &config.log)
            case "serve": applyServe(value, to: &config.serve, base: base)
            case "metrics": applyMetrics(value, to: &config.metrics, base: base)
            case "catalog": applyCatalog(value, to: &config.catalog, base: base)
            case "poll":
                guard case .bool(let flag) = value.kind else {
                    fail(key, value.position, "must be true or false; found \(value.typeDescription)")
                    continue
                }
                config.poll = flag
            case "rescanSeconds":
                if let number = integer(
                    key, value, range: IngestConfig.rescanSecondsRange,
                    meaning: "seconds between rescans of a polled inbox (one on a network file system, or with \"poll\")")
                {
                    config.rescanSeconds = number
                }
            case "claimLeaseSeconds":
                if let number = integer(
                    key, value, range: IngestConfig.claimLeaseSecondsRange,
                    meaning: "seconds without a heartbeat before another node takes a node's claimed files over")
                {
                    config.claimLeaseSeconds = number
                }
            case "node":
                guard case .string(let text) = value.kind, IngestConfig.isValidNode(text) else {
                    fail(
                        key, value.position,
                        "must be this node's short id: 1 to 32 letters, digits, '-' or '_' (like \"ingest-1\"); found "
                            + value.typeDescription)
                    continue
                }
                config.node = text
            default: break  // reported by checkKeys
            }
        }
        checkFolders(config, members)
    }

    private mutating func applyVideo(_ value: JSONValue, to video: inout IngestConfig.Video) {
        guard case .object(let members) = value.kind else {
            fail(
                "video", value.position,
                "must be an object with \"videoCodecs\" and/or \"audioCodecs\" (lists of four-character codes); found \(value.typeDescription)"
            )
            return
        }
        checkKeys(members, allowed: IngestConfig.videoKeys, parent: "video")
        for member in members {
            switch member.key {
            case "videoCodecs":
                if let codes = codeList("video.videoCodecs", member.value) { video.videoCodecs = codes }
            case "audioCodecs":
                if let codes = codeList("video.audioCodecs", member.value) { video.audioCodecs = codes }
            default: break
            }
        }
    }

    private mutating func applyLog(_ value: JSONValue, to log: inout IngestConfig.Log) {
        guard case .object(let members) = value.kind else {
            fail(
                "log", value.position,
                "must be an object like {\"format\": \"text\", \"level\": \"info\"}; found \(value.typeDescription)")
            return
        }
        checkKeys(members, allowed: IngestConfig.logKeys, parent: "log")
        for member in members {
            switch member.key {
            case "format": if let format = choice("log.format", member.value, LogFormat.self) { log.format = format }
            case "level": if let level = choice("log.level", member.value, LogLevel.self) { log.level = level }
            default: break
            }
        }
    }

    private mutating func applyMetrics(_ value: JSONValue, to metrics: inout MetricsSettings, base: String) {
        guard case .object(let members) = value.kind else {
            fail(
                "metrics", value.position,
                "must be an object like {\"textfile\": \"/var/lib/prometheus/node-exporter/photodrop.prom\"}; "
                    + "found \(value.typeDescription)")
            return
        }
        checkKeys(members, allowed: IngestConfig.metricsKeys, parent: "metrics")
        for member in members {
            switch member.key {
            case "textfile":
                if let file = path("metrics.textfile", member.value, base: base) {
                    if file.hasSuffix(".prom") {
                        metrics.textfile = file
                    } else {
                        fail(
                            "metrics.textfile", member.value.position,
                            "must end in '.prom' (node_exporter's textfile collector reads only those); found \(file)")
                    }
                }
            case "intervalSeconds":
                if let seconds = integer(
                    "metrics.intervalSeconds", member.value, range: MetricsSettings.intervalRange,
                    meaning: "seconds between two writes of the metrics file")
                {
                    metrics.intervalSeconds = seconds
                }
            default: break
            }
        }
    }

    private mutating func applyCatalog(_ value: JSONValue, to catalog: inout CatalogSettings, base: String) {
        guard case .object(let members) = value.kind else {
            fail(
                "catalog", value.position,
                "must be an object like {\"postgres\": \"postgresql:///photodrop?host=/run/postgresql\"}; found "
                    + value.typeDescription)
            return
        }
        checkKeys(members, allowed: IngestConfig.catalogKeys, parent: "catalog")
        for member in members {
            let value = member.value
            switch member.key {
            case "postgres":
                guard case .string(let text) = value.kind, !text.allSatisfy({ $0 == " " || $0 == "\t" }) else {
                    fail(
                        "catalog.postgres", value.position,
                        "must be a PostgreSQL connection string or URI (like \"postgresql:///photodrop?host=/run/"
                            + "postgresql\" or \"host=db.lan dbname=photodrop user=photodrop\"); found "
                            + value.typeDescription)
                    continue
                }
                catalog.postgres = text
            case "passwordFile":
                if let file = path("catalog.passwordFile", value, base: base) { catalog.passwordFile = file }
            default: break
            }
        }
        if catalog.passwordFile != nil && catalog.postgres == nil {
            fail("catalog.passwordFile", value.position, "needs \"postgres\": the password is for a PostgreSQL catalog")
        }
    }

    private mutating func applyServe(_ value: JSONValue, to serve: inout ServeSettings, base: String) {
        guard case .object(let members) = value.kind else {
            fail(
                "serve", value.position,
                "must be an object like {\"listen\": \"127.0.0.1:8377\", \"tokenFile\": \"/etc/photodrop/token\"}; "
                    + "found \(value.typeDescription)")
            return
        }
        checkKeys(members, allowed: IngestConfig.serveKeys, parent: "serve")
        for member in members {
            let value = member.value
            switch member.key {
            case "listen":
                let found: String
                if case .string(let text) = value.kind {
                    if let (host, port) = ServeSettings.parseListen(text) {
                        (serve.host, serve.port) = (host, port)
                        continue
                    }
                    found = "\"\(text)\""
                } else {
                    found = value.typeDescription
                }
                fail(
                    "serve.listen", value.position,
                    "must be \"ADDRESS:PORT\" with an IP address (\"127.0.0.1:8377\", \"0.0.0.0:8377\", "
                        + "\"[::1]:8377\"); found \(found)")
            case "token":
                guard case .string(let token) = value.kind, ServeSettings.isAcceptableToken(token) else {
                    fail(
                        "serve.token", value.position,
                        "must be a string of at least \(ServeSettings.minimumTokenLength) printable characters without "
                            + "spaces; 'photodrop serve --new-token' prints a good one")
                    continue
                }
                serve.token = token
            case "tokenFile": if let file = path("serve.tokenFile", value, base: base) { serve.tokenFile = file }
            case "behindProxy":
                guard case .bool(let flag) = value.kind else {
                    fail("serve.behindProxy", value.position, "must be true or false; found \(value.typeDescription)")
                    continue
                }
                serve.behindProxy = flag
            case "trustedProxies":
                var addresses: [String] = []
                if case .array(let items) = value.kind {
                    for item in items {
                        guard case .string(let text) = item.kind, ServeSettings.isIPAddress(text) else {
                            fail(
                                "serve.trustedProxies", item.position,
                                "must list the IP addresses of the reverse proxies in front of serve (like "
                                    + "[\"127.0.0.1\", \"::1\"]); found \(item.typeDescription)")
                            continue
                        }
                        addresses.append(text)
                    }
                    serve.trustedProxies = addresses
                } else {
                    fail(
                        "serve.trustedProxies", value.position,
                        "must be a list of IP addresses like [\"127.0.0.1\", \"::1\"]; found \(value.typeDescription)")
                }
            case "maxUploadBytes":
                if let bytes = integer(
                    "serve.maxUploadBytes", value, range: 1...(1 << 50), meaning: "the largest upload, in bytes")
                {
                    serve.maxUploadBytes = Int64(bytes)
                }
            case "pictureCacheMiB":
                if let mebibytes = integer(
                    "serve.pictureCacheMiB", value, range: 0...65536,
                    meaning: "the memory for pictures kept ready to send, in MiB (0: none)")
                {
                    serve.pictureCacheMiB = mebibytes
                }
            case "tls":
                guard case .object(let tls) = value.kind else {
                    fail(
                        "serve.tls", value.position,
                        "must be an object like {\"certificate\": \"/etc/photodrop/cert.pem\", \"key\": "
                            + "\"/etc/photodrop/key.pem\"}; found \(value.typeDescription)")
                    continue
                }
                checkKeys(tls, allowed: IngestConfig.tlsKeys, parent: "serve.tls")
                for entry in tls {
                    switch entry.key {
                    case "certificate":
                        if let file = path("serve.tls.certificate", entry.value, base: base) {
                            serve.certificateFile = file
                        }
                    case "key": if let file = path("serve.tls.key", entry.value, base: base) { serve.keyFile = file }
                    default: break
                    }
                }
                if (serve.certificateFile == nil) != (serve.keyFile == nil) {
                    fail("serve.tls", value.position, "needs both \"certificate\" and \"key\" (PEM files)")
                }
            default: break
            }
        }
        if serve.token != nil && serve.tokenFile != nil {
            fail("serve.token", value.position, "give either \"token\" or \"tokenFile\", not both")
        }
    }

    // MARK: - Values

    private mutating func path(_ key: String, _ value: JSONValue, base: String) -> String? {
        guard case .string(let text) = value.kind else {
            fail(key, value.position, "must be a folder path in a string; found \(value.typeDescription)")
            return nil
        }
        if text.isEmpty {
            fail(key, value.position, "must not be empty; write \".\" for the config file's own folder")
            return nil
        }
        if text.utf8.contains(0) {
            fail(key, value.position, "must not contain a NUL character")
            return nil
        }
        if text.hasPrefix("~") {
            // A shell expands ~; a config file is no shell, and "~/Inbx" would be a folder named "~" here.
            let home = ProcessInfo.processInfo.environment["HOME"] ?? "/home/NAME"
            let example = text == "~" || text.hasPrefix("~/") ? home + text.dropFirst() : "/home/" + text.dropFirst()
            fail(
                key, value.position,
                "starts with \"~\", which photodrop does not expand (a shell does; a config file is not read by one); "
                    + "write the full path, e.g. \"\(example)\"")
            return nil
        }
        return Path.resolve(text, against: base)
    }

    private mutating func group(_ key: String, _ value: JSONValue) -> LibraryGroup? {
        guard case .string(let name) = value.kind, !name.isEmpty else {
            fail(
                key, value.position,
                "must be the name of a group (as in /etc/group) whose members may read the library; found "
                    + value.typeDescription)
            return nil
        }
        guard let group = LibraryGroup(name: name) else {
            fail(
                key, value.position,
                "there is no group \"\(name)\" on this system; create it (groupadd \(name)) or remove the key")
            return nil
        }
        return group
    }

    private mutating func integer(_ key: String, _ value: JSONValue, range: ClosedRange<Int>, meaning: String) -> Int? {
        let allowed = "must be a whole number from \(range.lowerBound) to \(range.upperBound) (\(meaning))"
        switch value.kind {
        case .number(let text):
            guard let number = Int(text) else {
                fail(key, value.position, "\(allowed); found \(text)")
                return nil
            }
            guard range.contains(number) else {
                fail(key, value.position, "\(allowed); found \(number)")
                return nil
            }
            return number
        case .string(let text) where Int(text) != nil:
            fail(key, value.position, "\(allowed), written without quotes; found the string \"\(text)\"")
            return nil
        default:
            fail(key, value.position, "\(allowed); found \(value.typeDescription)")
            return nil
        }
    }

    private mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String, _ value: JSONValue, _ type: Choice.Type
    ) -> Choice? where Choice.RawValue == String {
        let names = Choice.allCases.map(\.rawValue)
        let allowed = "must be one of " + names.map { "\"\($0)\"" }.joined(separator: ", ")
        guard case .string(let text) = value.kind else {
            fail(key, value.position, "\(allowed); found \(value.typeDescription)")
            return nil
        }
        if let result = Choice(rawValue: text) { return result }
        var message = "\(allowed); found \"\(text)\""
        if let suggestion = Suggestion.closest(to: text, among: names) {
            message += ". Did you mean \"\(suggestion)\"?"
        }
        fail(key, value.position, message)
        return nil
    }

    private mutating func globList(_ key: String, _ value: JSONValue) -> [String]? {
        guard case .array(let elements) = value.kind else {
            fail(
                key, value.position,
                "must be a list of glob patterns such as [\"*.xmp\", \"Thumbs.db\"]; found \(value.typeDescription)")
            return nil
        }
        var patterns: [String] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            let elementKey = "\(key)[\(index)]"
            guard case .string(let text) = element.kind else {
                fail(
                    elementKey, element.position, "must be a glob pattern in a string; found \(element.typeDescription)"
                )
                valid = false
                continue
            }
            if text.isEmpty || text.utf8.contains(0) {
                fail(elementKey, element.position, "must be a non-empty glob pattern without NUL characters")
                valid = false
                continue
            }
            if text.hasPrefix("/") {
                fail(
                    elementKey, element.position,
                    "patterns match names or paths relative to the inbox, so they cannot start with \"/\"; found \"\(text)\""
                )
                valid = false
                continue
            }
            if let problem = IgnoreRules.problem(in: text) {
                fail(elementKey, element.position, "\"\(text)\" is not a valid glob pattern: \(problem)")
                valid = false
                continue
            }
            patterns.append(text)
        }
        return valid ? patterns : nil
    }

    private mutating func codeList(_ key: String, _ value: JSONValue) -> [FourCC]? {
        guard case .array(let elements) = value.kind else {
            fail(
                key, value.position,
                "must be a list of four-character codes such as [\"avc1\", \"hvc1\"]; found \(value.typeDescription)")
            return nil
        }
        var codes: [FourCC] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            let elementKey = "\(key)[\(index)]"
            guard case .string(let text) = element.kind, let code = FourCC(text) else {
                fail(
                    elementKey, element.position,
                    "must be a four-character code: exactly 4 printable ASCII characters, e.g. \"avc1\" or \"ac-3\"; found \(element.typeDescription)"
                )
                valid = false
                continue
            }
            codes.append(code)
        }
        return valid ? codes : nil
    }

    // MARK: - Structure

    private mutating func checkKeys(_ members: [JSONValue.Member], allowed: [String], parent: String?) {
        for member in members where !allowed.contains(member.key) {
            let key = parent.map { "\($0).\(member.key)" } ?? member.key
            var message = "unknown key"
            if let suggestion = Suggestion.closest(to: member.key, among: allowed) {
                message += ". Did you mean \"\(suggestion)\"?"
            }
            let scope = parent.map { "in \"\($0)\"" } ?? "at the top level"
            message += " Allowed \(scope): " + allowed.joined(separator: ", ")
            fail(key, member.keyPosition, message)
        }
    }

    /// The three folders must not overlap in any direction: one inside another, equal, or reached through a
    /// symbolic link. A library inside the inbox, or an inbox inside the library, makes photodrop take its own stored
    /// originals as new drops (and delete them as duplicates of themselves); `Rejected` inside the inbox is taken
    /// again, and inside the library `verify` calls its files orphans. Paths are compared as written and as the file
    /// system resolves them (``PathResolution/physical(_:)``), so that a link cannot hide an overlap.
    private mutating func checkFolders(_ config: IngestConfig, _ members: [JSONValue.Member]) {
        func position(_ key: String) -> JSONValue.Position? { members.first { $0.key == key }?.value.position }
        let folders = [("library", config.library), ("inbox", config.inbox), ("rejected", config.rejected)]
        let physical = folders.map { Path.physical($0.1) }
        for first in folders.indices {
            for second in folders.indices where second > first {
                let (key, folder) = folders[first]
                let (otherKey, otherFolder) = folders[second]
                let lexical = Self.relation(folder, otherFolder)
                guard let relation = lexical ?? Self.relation(physical[first], physical[second]) else { continue }
                let through = lexical == nil ? " (through a symbolic link)" : ""
                // Name the key whose folder lies inside the other; for equal folders, the one written later.
                let inner: (key: String, folder: String)
                let outer: (key: String, folder: String)
                switch relation {
                case .inside: (inner, outer) = ((key, folder), (otherKey, otherFolder))
                case .contains, .same: (inner, outer) = ((otherKey, otherFolder), (key, folder))
                }
                let what = relation == .same ? "is the same folder as" : "lies inside"
                fail(
                    inner.key, position(inner.key) ?? position(outer.key),
                    "\(inner.folder) \(what) \"\(outer.key)\" (\(outer.folder))\(through). "
                        + Self.consequence(inner: inner.key, outer: outer.key)
                        + " Give \"library\", \"inbox\" and \"rejected\" folders that do not contain one another")
            }
        }
    }

    private enum Relation { case same, inside, contains }

    private static func relation(_ path: String, _ other: String) -> Relation? {
        if path == other { return .same }
        if Path.isSameOrBelow(path, other) { return .inside }
        if Path.isSameOrBelow(other, path) { return .contains }
        return nil
    }

    private static func consequence(inner: String, outer: String) -> String {
        switch (inner, outer) {
        case (_, "inbox"):
            return "Every file there would be taken as a new drop."
        case ("inbox", _):
            return "photodrop would take the \(outer == "library" ? "library's stored originals" : "rejected files") "
                + "as new drops."
        case ("rejected", "library"):
            return "verify would report the rejected files as orphans of the library."
        default:
            return "An album named like the library's folder would have its rejected files put into the library."
        }
    }

    private mutating func fail(_ key: String?, _ position: JSONValue.Position?, _ message: String) {
        problems.append(ConfigError.Problem(key: key, position: position, message: message))
    }
}
