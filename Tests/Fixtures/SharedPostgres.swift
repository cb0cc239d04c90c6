import Foundation
import PhotodropSystem
import Synchronization

/// One PostgreSQL cluster for a whole test process, started at the first test that asks for it and stopped (by its
/// PID) when the process exits: the catalog suite runs each of its tests on both backends, and an `initdb` per test
/// would cost more than the tests. Each test takes a database of its own (``newDatabase(_:)``), so tests never see
/// each other's rows.
///
/// A test process that died without its exit handler (killed) leaves its cluster behind: the next one stops such
/// clusters first (their `owner.pid` names a process that is gone).
public enum SharedPostgres {
    private static let state = Mutex<Task<PostgresCluster, any Error>?>(nil)
    nonisolated(unsafe) private static var clusterForExit: PostgresCluster?
    private static let counter = Atomic<Int>(0)

    /// The process's cluster, started on first use.
    public static func cluster() async throws -> PostgresCluster {
        let task = state.withLock { task in
            if let task { return task }
            let started = Task { () throws -> PostgresCluster in
                stopAbandonedClusters()
                let cluster = try await PostgresCluster("shared-pg")
                try Data("\(getpid())\n".utf8).write(to: URL(fileURLWithPath: cluster.folder.url("owner.pid")))
                clusterForExit = cluster
                atexit {
                    guard let cluster = SharedPostgres.clusterForExit else { return }
                    cluster.stop()
                    try? FileManager.default.removeItem(atPath: cluster.folder.path)
                }
                return cluster
            }
            task = started
            return started
        }
        return try await task.value
    }

    /// A new, empty database on the process's cluster; its connection string.
    public static func newDatabase(_ label: String = "catalog") async throws -> String {
        let cluster = try await cluster()
        let name = "\(label)_\(getpid())_\(counter.add(1, ordering: .relaxed).newValue)"
        let output = try await ProcessRunner.run(
            URL(fileURLWithPath: cluster.binaries + "/createdb"),
            ["-h", cluster.folder.path, "-U", "postgres", name], in: URL(fileURLWithPath: "/"), timeout: 60)
        guard output.status == 0 else {
            throw ProcessRunner.StartFailure(description: "createdb \(name) failed: \(output)")
        }
        return cluster.connectionString(database: name)
    }

    /// Stops clusters of earlier test processes that are gone, and removes their folders.
    private static func stopAbandonedClusters() {
        let temporary = FileManager.default.temporaryDirectory.path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in names where name.hasPrefix("photodrop-shared-pg-") {
            let folder = temporary + "/" + name
            guard let owner = (try? String(contentsOfFile: folder + "/owner.pid", encoding: .utf8))
                .flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
                kill(owner, 0) != 0
            else { continue }
            let pidText = (try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8)) ?? ""
            if let postmaster = pidText.split(separator: "\n").first.flatMap({ Int32($0) }), kill(postmaster, 0) == 0 {
                kill(postmaster, SIGINT)
                for _ in 0..<1000 where kill(postmaster, 0) == 0
                    && FileManager.default.fileExists(atPath: folder + "/data/postmaster.pid")
                {
                    usleep(10_000)
                }
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
