import Foundation
import PhotodropSystem
import Synchronization

/// A throwaway PostgreSQL server for one test or suite: `initdb` into a temporary folder, `pg_ctl start` listening on
/// a Unix socket in that folder only (no TCP port, no system service), stopped by its PID when the test lets go of it.
///
/// `initdb` refuses to run as root, and CI runs as root: then the cluster belongs to `nobody` (its files, its server
/// process), started through `setpriv`; the test process connects over the socket as the database's superuser
/// `postgres` with trust authentication, which only that folder's socket offers.
public final class PostgresCluster: Sendable {
    /// The folder holding the data directory, the socket and the server's log.
    public let folder: TemporaryFolder
    /// The postmaster's process ID (read from `postmaster.pid`); a ``restart(after:)`` changes it.
    public var pid: Int32 { postmaster.load(ordering: .sequentiallyConsistent) }
    private let postmaster: Atomic<Int32>
    /// The server's major version, from the binaries that made it.
    public let binaries: String

    /// The PostgreSQL programs' folder (`/usr/lib/postgresql/15/bin`), the newest installed; nil when none is.
    public static var binariesFolder: String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap { Int($0) }.sorted()
        for version in versions.reversed() {
            let folder = "\(root)/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: folder + "/initdb") { return folder }
        }
        return nil
    }

    /// Whether a cluster can be started here (the PostgreSQL server programs are installed; as root, `setpriv` too).
    public static var canStart: Bool {
        binariesFolder != nil && (geteuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    }

    /// The libpq connection string of database `database` on this server.
    public func connectionString(database: String = "postgres") -> String {
        "postgresql:///\(database)?host=\(folder.path)&user=postgres"
    }

    /// Starts a new cluster (a few seconds: `initdb` writes a fresh data directory).
    public init(_ label: String = "pg") async throws {
        guard let binaries = Self.binariesFolder else {
            throw ProcessRunner.StartFailure(description: "PostgreSQL's server programs are not installed (apt-get install postgresql)")
        }
        self.binaries = binaries
        folder = try TemporaryFolder(label)
        let asRoot = geteuid() == 0
        if asRoot {
            // The folder must belong to the unprivileged owner of the cluster.
            guard chown(folder.path, 65534, 65534) == 0 else { throw SystemError.current("chown", path: folder.path) }
        }
        let data = folder.url("data")
        let initdb = try await Self.run(
            binaries + "/initdb",
            ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
            asRoot: asRoot)
        guard initdb.status == 0 else {
            throw ProcessRunner.StartFailure(description: "initdb failed: \(initdb)")
        }
        // Only the folder's socket; fsync off (a test cluster is thrown away, never recovered after a power cut).
        let options = "-c listen_addresses='' -k \(folder.path) -c fsync=off -c full_page_writes=off"
        let started = try await Self.run(
            binaries + "/pg_ctl",
            ["-D", data, "-l", folder.url("server.log"), "-o", options, "-w", "-t", "60", "start"], asRoot: asRoot)
        guard started.status == 0 else {
            let log = (try? String(contentsOfFile: folder.url("server.log"), encoding: .utf8)) ?? ""
            throw ProcessRunner.StartFailure(description: "pg_ctl start failed: \(started)\n\(log)")
        }
        let pidFile = (try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8)) ?? ""
        guard let pid = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw ProcessRunner.StartFailure(description: "no postmaster.pid after pg_ctl start")
        }
        self.postmaster = Atomic(pid)
    }

    deinit {
        stop()
    }

    /// Stops the server (fast shutdown: SIGINT to its PID) and waits until it is gone; SIGKILL after 30 s.
    public func stop() {
        guard kill(pid, 0) == 0 else { return }
        kill(pid, SIGINT)
        let pidFile = folder.url("data/postmaster.pid")
        for _ in 0..<3000 {
            // The postmaster removes its pid file as the last step of a clean shutdown; a zombie left to a container's
            // PID 1 would still answer kill(pid, 0).
            if !FileManager.default.fileExists(atPath: pidFile) || kill(pid, 0) != 0 { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
    }

    /// Stops the server for `seconds` and starts it again on the same data (what an administrator's restart or an
    /// outage looks like to the clients); returns the new postmaster's PID.
    public func restart(after seconds: Double) async throws -> Int32 {
        stop()
        try await Task.sleep(for: .seconds(seconds))
        let options = "-c listen_addresses='' -k \(folder.path) -c fsync=off -c full_page_writes=off"
        let started = try await Self.run(
            binaries + "/pg_ctl",
            ["-D", folder.url("data"), "-l", folder.url("server.log"), "-o", options, "-w", "-t", "60", "start"],
            asRoot: geteuid() == 0)
        guard started.status == 0 else { throw ProcessRunner.StartFailure(description: "pg_ctl start failed: \(started)") }
        let pidFile = (try? String(contentsOfFile: folder.url("data/postmaster.pid"), encoding: .utf8)) ?? ""
        let pid = pidFile.split(separator: "\n").first.flatMap { Int32($0) } ?? 0
        // Stopped by its new PID from now on (the old one is gone, and may be another process's soon).
        postmaster.store(pid, ordering: .sequentiallyConsistent)
        return pid
    }

    /// The server's log so far.
    public var log: String { (try? String(contentsOfFile: folder.url("server.log"), encoding: .utf8)) ?? "" }

    private static func run(_ program: String, _ arguments: [String], asRoot: Bool) async throws -> ProcessOutput {
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        if asRoot {
            environment["HOME"] = "/"
            return try await ProcessRunner.run(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=65534", "--regid=65534", "--clear-groups", "--", program] + arguments,
                in: URL(fileURLWithPath: "/"), environment: environment, timeout: 120)
        }
        return try await ProcessRunner.run(
            URL(fileURLWithPath: program), arguments, in: URL(fileURLWithPath: "/"), environment: environment,
            timeout: 120)
    }
}
