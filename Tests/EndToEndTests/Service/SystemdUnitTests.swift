import Foundation
import TestFixtures
import Testing

/// The files of `contrib/systemd/`, checked with systemd's own tools, none of which needs systemd as PID 1:
/// `systemd-analyze verify` and `security --offline` on the units (with `ExecStart=` pointing at the built binary),
/// `systemd-sysusers --root` and `systemd-tmpfiles --create --root` on the user and folder declarations, and the
/// example `config.json` loaded by photodrop itself.
@Suite(
    "systemd units, sysusers and tmpfiles of contrib/systemd", .serialized,
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"),
    .requires(SystemdTools.analyze != nil, "systemd-analyze (apt-get install systemd)"),
    ProcessBudget.endToEnd, .timeLimit(.minutes(5)))
struct SystemdUnitTests {
    static let units = ["photodrop-watch.service", "photodrop-serve.service"]

    @Test("systemd-analyze verify accepts both units, without a word about their lines", arguments: units)
    func unitVerifies(_ name: String) async throws {
        let folder = try TemporaryFolder("unit")
        let unit = try SystemdTools.installedCopy(of: name, in: folder)
        let verdict = try await SystemdTools.verify(unit)
        #expect(verdict.status == 0, "\(verdict.output)")
        #expect(verdict.problems.isEmpty, "\(verdict.problems)")
    }

    @Test("the check can fail: a misspelt key, a bad value and a missing program are each caught")
    func brokenUnitsFail() async throws {
        let folder = try TemporaryFolder("unit-broken")
        let name = "photodrop-watch.service"
        let good = try SystemdTools.installedCopy(of: name, in: folder)
        let text = try String(contentsOf: good, encoding: .utf8)
        let breakages: [(String, String, String)] = [
            ("WatchdogSec=60s", "WatchdogSecc=60s", "misspelt key"),
            ("Type=notify", "Type=notfy", "bad value"),
            ("ExecReload=/bin/kill -HUP", "ExecReload=/bin/no-such-kill -HUP", "missing program"),
        ]
        for (original, broken, what) in breakages {
            #expect(text.contains(original), "the unit no longer has '\(original)'")
            let subfolder = folder.url(what.replacingOccurrences(of: " ", with: "-"))
            try FileManager.default.createDirectory(atPath: subfolder, withIntermediateDirectories: true)
            let unit = URL(fileURLWithPath: subfolder).appendingPathComponent(name)
            try text.replacingOccurrences(of: original, with: broken).write(to: unit, atomically: true, encoding: .utf8)
            let verdict = try await SystemdTools.verify(unit)
            #expect(
                verdict.status != 0 || !verdict.problems.isEmpty,
                "a unit with a \(what) passed the check:\n\(verdict.output)")
        }
    }

    @Test("the directives photodrop relies on are there, with the values it needs")
    func directives() throws {
        let watch = try UnitFile(SystemdTools.contrib.appendingPathComponent("photodrop-watch.service"))
        let serve = try UnitFile(SystemdTools.contrib.appendingPathComponent("photodrop-serve.service"))
        let config = try exampleConfig()
        let folders = ["library", "inbox", "rejected"].compactMap { config[$0] as? String }
        #expect(folders.count == 3)
        for (unit, command) in [(watch, "watch"), (serve, "serve")] {
            #expect(unit.values("Type") == ["notify"])
            #expect(unit.values("NotifyAccess") == ["main"])
            #expect(
                unit.values("ExecStart") == ["/usr/local/bin/photodrop --config /etc/photodrop/config.json \(command)"])
            #expect(unit.values("ExecReload") == ["/bin/kill -HUP $MAINPID"])
            #expect(unit.values("WatchdogSec").count == 1)
            #expect(unit.values("KillMode") == ["mixed"], "the render helper must not get SIGTERM from systemd")
            #expect(unit.values("User") == ["photodrop"])
            #expect(unit.values("ProtectSystem") == ["strict"])
            #expect(unit.values("NoNewPrivileges") == ["yes"])
            #expect(unit.values("MemoryDenyWriteExecute").isEmpty, "liborc in the render helper aborts under it")
            let mounts = unit.words("RequiresMountsFor")
            for folder in folders { #expect(mounts.contains(folder), "RequiresMountsFor lacks \(folder)") }
        }
        #expect(Set(watch.words("ReadWritePaths")).isSuperset(of: folders))
        #expect(Set(serve.words("ReadWritePaths")) == Set(folders.prefix(2)), "serve writes the library and the inbox")
        #expect(Set(watch.words("AmbientCapabilities")) == ["CAP_CHOWN", "CAP_FOWNER", "CAP_LEASE"])
        #expect(Set(watch.words("CapabilityBoundingSet")) == ["CAP_CHOWN", "CAP_FOWNER", "CAP_LEASE"])
        #expect(serve.values("CapabilityBoundingSet") == [""], "serve has no capabilities")
        #expect(watch.words("RestrictAddressFamilies") == ["AF_UNIX"])
        #expect(Set(serve.words("RestrictAddressFamilies")) == ["AF_UNIX", "AF_INET", "AF_INET6"])
        let groups = Set(watch.words("SupplementaryGroups"))
        #expect(groups.contains("photodrop-upload"))
        #expect(groups.contains(try #require(config["libraryGroup"] as? String)), "the daemon is in libraryGroup")
    }

    @Test(
        "systemd-analyze security rates both units' exposure 2.5 or less (their hardening lines are understood)",
        arguments: units)
    func exposure(_ name: String) async throws {
        let analyze = try #require(SystemdTools.analyze)
        let unit = SystemdTools.contrib.appendingPathComponent(name)
        let result = try await runProcess(
            analyze, ["security", "--offline=yes", "--no-pager", "--threshold=25", unit.path], timeout: 60)
        #expect(result.status == 0, "\(result.stdout.split(separator: "\n").suffix(3).joined(separator: "\n"))")
    }

    @Test("systemd-sysusers makes the system user photodrop and its groups, the same ones when run again")
    func sysusers() async throws {
        try skipUnless(SystemdTools.sysusers != nil, "systemd-sysusers (apt-get install systemd)")
        let root = try TemporaryFolder("sysusers")
        let first = try await SystemdTools.createUsers(in: root)
        #expect(first.status == 0, "\(first)")
        let passwd = try SystemdTools.database(root, "passwd")
        let group = try SystemdTools.database(root, "group")
        let user = try #require(passwd["photodrop"], "\(passwd)")
        let uid = try #require(UInt32(user[2]))
        #expect((1..<1000).contains(uid), "a system uid (below 1000): \(uid)")
        #expect(user[6] == "/usr/sbin/nologin")
        #expect(group["photodrop"]?[2] == user[3], "photodrop's primary group is photodrop")
        for name in ["photodrop-upload", "photodrop-library"] {
            let entry = try #require(group[name], "no group \(name)")
            #expect((1..<1000).contains(UInt32(entry[2]) ?? 0))
            #expect(entry[3].split(separator: ",").contains("photodrop"), "photodrop is a member of \(name)")
        }
        let config = try exampleConfig()
        #expect(group[try #require(config["libraryGroup"] as? String)] != nil, "the example's libraryGroup is made")
        let again = try await SystemdTools.createUsers(in: root)
        #expect(again.status == 0)
        #expect(try SystemdTools.database(root, "passwd") == passwd)
        #expect(try SystemdTools.database(root, "group") == group)
    }

    @Test("systemd-tmpfiles makes the folders with their modes and owners, and leaves what photodrop changed alone")
    func tmpfiles() async throws {
        try skipUnless(
            SystemdTools.sysusers != nil && SystemdTools.tmpfiles != nil, "systemd-sysusers and systemd-tmpfiles")
        // Without root, tmpfiles cannot give the folders to photodrop: the whole point of the check.
        try skipUnless(getuid() == 0, "needs root to create folders owned by other users")
        let root = try TemporaryFolder("tmpfiles")
        #expect(try await SystemdTools.createUsers(in: root).status == 0)
        let first = try await SystemdTools.createFolders(in: root)
        #expect(first.status == 0, "\(first)")
        #expect(SystemdTools.unexpectedTmpfilesMessages(first).isEmpty, "\(first)")
        let passwd = try SystemdTools.database(root, "passwd")
        let group = try SystemdTools.database(root, "group")
        func uid(_ name: String) -> UInt32? { passwd[name].flatMap { UInt32($0[2]) } }
        func gid(_ name: String) -> UInt32? { group[name].flatMap { UInt32($0[2]) } }
        let expected: [(String, mode_t, UInt32?, UInt32?)] = [
            ("srv/photodrop", 0o755, 0, 0),
            ("srv/photodrop/Inbox", 0o3770, uid("photodrop"), gid("photodrop-upload")),
            ("srv/photodrop/Library", 0o750, uid("photodrop"), gid("photodrop")),
            ("srv/photodrop/Rejected", 0o750, uid("photodrop"), gid("photodrop")),
            ("etc/photodrop", 0o750, 0, gid("photodrop")),
        ]
        for (path, mode, owner, group) in expected {
            let info = try SystemdTools.status(root.url(path))
            #expect(info.st_mode & S_IFMT == S_IFDIR, "\(path)")
            #expect(info.st_mode & 0o7777 == mode, "\(path): \(String(info.st_mode & 0o7777, radix: 8))")
            #expect(owner != nil && info.st_uid == owner!, "\(path): owner \(info.st_uid)")
            #expect(group != nil && info.st_gid == group!, "\(path): group \(info.st_gid)")
        }
        // The inbox's default ACL: a folder an uploader makes is group-writable (and the group's, by setgid) whatever
        // the umask, which the ACL replaces; others get nothing.
        let made = root.url("srv/photodrop/Inbox/Trip")
        #expect(mkdir(made, 0o777) == 0)
        let madeInfo = try SystemdTools.status(made)
        #expect(madeInfo.st_mode & 0o7777 == 0o2770, "\(String(madeInfo.st_mode & 0o7777, radix: 8))")
        #expect(madeInfo.st_gid == gid("photodrop-upload")!)

        // What photodrop does inside: libraryGroup given to the library, the inbox's .photodrop/claimed/ at 0700.
        // A second run (every boot) must not take either back.
        let library = root.url("srv/photodrop/Library")
        let users = try #require(getgrnam("users")?.pointee.gr_gid)
        #expect(chown(library, uid_t(uid("photodrop")!), users) == 0)
        try root.mkdir("srv/photodrop/Inbox/.photodrop/claimed")
        #expect(chmod(root.url("srv/photodrop/Inbox/.photodrop/claimed"), 0o700) == 0)
        try root.write("srv/photodrop/Inbox/.photodrop/claimed/1-a.jpg")
        let second = try await SystemdTools.createFolders(in: root)
        #expect(second.status == 0, "\(second)")
        #expect(try SystemdTools.status(library).st_gid == users, "tmpfiles took the library's group back")
        #expect(try SystemdTools.status(root.url("srv/photodrop/Inbox/.photodrop/claimed")).st_mode & 0o7777 == 0o700)
        #expect(FileManager.default.fileExists(atPath: root.url("srv/photodrop/Inbox/.photodrop/claimed/1-a.jpg")))
    }

    @Test("the example config.json is valid for photodrop, and `init` makes the library in the folder tmpfiles made")
    func exampleConfigLoads() async throws {
        try skipUnless(
            SystemdTools.sysusers != nil && SystemdTools.tmpfiles != nil, "systemd-sysusers and systemd-tmpfiles")
        try skipUnless(getuid() == 0, "needs root to create folders owned by other users")
        let root = try TemporaryFolder("example-config")
        #expect(try await SystemdTools.createUsers(in: root).status == 0)
        #expect(try await SystemdTools.createFolders(in: root).status == 0)
        // The example as it is, but below the temporary root. libraryGroup must name a group of this machine (photodrop
        // asks the system's group database, not the root's); where sysusers has not run, "users" stands in.
        var text = try String(contentsOf: SystemdTools.contrib.appendingPathComponent("config.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"/srv/", with: "\"\(root.path)/srv/")
            .replacingOccurrences(of: "\"/etc/", with: "\"\(root.path)/etc/")
        if getgrnam("photodrop-library") == nil {
            text = text.replacingOccurrences(of: "\"photodrop-library\"", with: "\"users\"")
        }
        let config = try root.write("etc/photodrop/config.json", text)
        let initialized = try await runPhotodrop(["--config", config, "init"], in: URL(fileURLWithPath: root.path))
        #expect(initialized.status == 0, "\(initialized)")
        let status = try await runPhotodrop(
            ["--config", config, "status", "--json"], in: URL(fileURLWithPath: root.path))
        #expect(status.status == 0, "\(status)")
        let report = try status.jsonObject()
        #expect(report["libraryExists"] as? Bool == true, "\(report)")
        #expect(report["healthy"] as? Bool == true, "\(report)")
    }

    func exampleConfig() throws -> [String: Any] {
        let data = try Data(contentsOf: SystemdTools.contrib.appendingPathComponent("config.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

/// systemd's tools and the files of `contrib/systemd/`.
enum SystemdTools {
    static let contrib = packageRoot.appendingPathComponent("contrib/systemd")

    static func tool(_ name: String) -> URL? {
        ["/usr/bin/", "/bin/"].map { URL(fileURLWithPath: $0 + name) }.first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }
    static let analyze = tool("systemd-analyze")
    static let sysusers = tool("systemd-sysusers")
    static let tmpfiles = tool("systemd-tmpfiles")

    /// A copy of the unit `name` in `folder`, its `ExecStart=` running the built binary on a config in `folder`.
    static func installedCopy(of name: String, in folder: TemporaryFolder) throws -> URL {
        let binary = try #require(PhotodropBinary.url)
        let text = try String(contentsOf: contrib.appendingPathComponent(name), encoding: .utf8)
        let installed = "ExecStart=/usr/local/bin/photodrop --config /etc/photodrop/config.json "
        #expect(text.contains(installed), "\(name): ExecStart= is not the installed path")
        let config = try folder.write("config.json", "{}")
        let copy = URL(fileURLWithPath: folder.url(name))
        try text.replacingOccurrences(of: installed, with: "ExecStart=\(binary.path) --config \(config) ")
            .write(to: copy, atomically: true, encoding: .utf8)
        return copy
    }

    struct Verdict {
        var status: Int32
        var output: String
        /// Lines about the unit itself: its file (`NAME:LINE: …`), its name (`NAME: Command … is not executable`), or
        /// any unknown or ignored setting. Not PID 1, verify may also talk about other units of the machine.
        var problems: [String]
    }

    static func verify(_ unit: URL) async throws -> Verdict {
        let analyze = try #require(analyze)
        let result = try await runProcess(
            analyze, ["verify", "--man=no", "--generators=no", "--recursive-errors=no", unit.path], timeout: 60)
        let output = result.stdout + result.stderr
        let name = unit.lastPathComponent
        let problems = output.split(separator: "\n").map(String.init).filter { line in
            line.contains(name) || line.contains("Unknown") || line.contains("ignoring")
        }
        return Verdict(status: result.status, output: output, problems: problems)
    }

    /// `systemd-sysusers --root=ROOT contrib/systemd/photodrop.sysusers` (ROOT/etc must exist).
    static func createUsers(in root: TemporaryFolder) async throws -> RunResult {
        try root.mkdir("etc")
        return try await runProcess(
            try #require(sysusers),
            ["--root=\(root.path)", contrib.appendingPathComponent("photodrop.sysusers").path], timeout: 60)
    }

    /// `systemd-tmpfiles --create --root=ROOT contrib/systemd/photodrop.tmpfiles`; names resolve in ROOT/etc.
    static func createFolders(in root: TemporaryFolder) async throws -> RunResult {
        try await runProcess(
            try #require(tmpfiles),
            ["--create", "--root=\(root.path)", contrib.appendingPathComponent("photodrop.tmpfiles").path],
            timeout: 60)
    }

    /// What tmpfiles said beyond the one expected message: an ACL naming a user is resolved through this machine's
    /// user database, not the root's, so `u:photodrop:rwx` (the metrics folder's line) cannot be parsed where this
    /// machine has no user photodrop. Owners and groups of folders do resolve in the root.
    static func unexpectedTmpfilesMessages(_ result: RunResult) -> [String] {
        (result.stdout + result.stderr).split(separator: "\n").map(String.init).filter {
            !(getpwnam("photodrop") == nil && $0.contains("Failed to parse ACL \"u:photodrop:rwx\""))
        }
    }

    /// ROOT/etc/NAME (passwd, group) as entries by name, each the line's fields.
    static func database(_ root: TemporaryFolder, _ name: String) throws -> [String: [String]] {
        let text = try String(contentsOfFile: root.url("etc/" + name), encoding: .utf8)
        var entries: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            entries[fields[0]] = fields
        }
        return entries
    }

    static func status(_ path: String) throws -> stat {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw HarnessError("lstat \(path): errno \(errno)") }
        return info
    }
}

/// A unit file's settings as systemd reads them: `Key=value` lines (comments and sections skipped), a key given
/// several times keeps every value.
struct UnitFile {
    var settings: [(key: String, value: String)] = []

    init(_ url: URL) throws {
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") || trimmed.hasPrefix("[") {
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            settings.append(
                (
                    String(trimmed[..<equals]).trimmingCharacters(in: .whitespaces),
                    String(trimmed[trimmed.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
                ))
        }
    }

    func values(_ key: String) -> [String] { settings.filter { $0.key == key }.map(\.value) }

    /// Every value of `key` split into words, a leading "-" (may be missing) dropped.
    func words(_ key: String) -> [String] {
        values(key).flatMap { $0.split(separator: " ").map { $0.hasPrefix("-") ? String($0.dropFirst()) : String($0) } }
    }
}
