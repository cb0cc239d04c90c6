import BuildInfo
import Ingest
import LibraryJSON
import PhotodropTelemetry

extension CatalogJSON {
    /// The report of `status --json` and `/api/status`.
    public static func status(_ report: StatusReport) -> JSONNode {
        let stats = report.statistics
        var members: [(String, JSONNode)] = [
            ("library", .string(report.library)),
            ("config", .string(report.configFile)),
            ("version", .string(PhotodropVersion.semantic)),
            ("commit", .string(PhotodropVersion.commit)),
            ("libraryExists", .bool(report.libraryExists)),
            ("node", .string(report.node)),
            (
                "nodes",
                .array(
                    report.nodes.map { node in
                        .object([
                            ("id", .string(node.id)), ("host", .string(node.host)), ("pid", .int(node.pid)),
                            ("version", .string(node.version)), ("inbox", .string(node.inbox)),
                            ("running", .bool(node.running)), ("heartbeatSecondsAgo", .double(node.heartbeatAge)),
                            ("claimed", .int(node.claimed)), ("waiting", .int(node.waiting)),
                        ])
                    })
            ),
            ("writable", report.writable.map { .bool($0) } ?? .null),
        ]
        switch report.daemon {
        case .running(let pid):
            var daemon: [(String, JSONNode)] = [("running", .bool(true)), ("pid", pid.map { .int(Int($0)) } ?? .null)]
            if let status = report.daemonStatus, status.saysConfiguration {
                daemon.append(("config", .string(status.configFile)))
            }
            if let watches = report.daemonStatus?.watches {
                daemon.append(
                    (
                        "watches",
                        .object([
                            ("folders", .int(watches.watchedFolders)), ("polled", .int(watches.unwatchedFolders)),
                            ("maxUserWatches", watches.maxUserWatches.map { .int($0) } ?? .null),
                        ])
                    ))
            }
            members.append(("daemon", .object(daemon)))
        case .notRunning, .unknown:
            members.append(("daemon", .object([("running", .bool(false)), ("pid", .null)])))
        }
        members += [
            (
                "assets",
                .object([
                    ("total", .int(stats?.assetCount ?? 0)), ("photos", .int(stats?.photoCount ?? 0)),
                    ("gifs", .int(stats?.gifCount ?? 0)), ("videos", .int(stats?.videoCount ?? 0)),
                    ("livePhotos", .int(stats?.livePhotoCount ?? 0)),
                ])
            ),
            ("favorites", .int(stats?.favoriteCount ?? 0)),
            ("hidden", .int(stats?.hiddenCount ?? 0)),
            ("recentlyDeleted", .int(stats?.recentlyDeletedCount ?? 0)),
            ("albums", .int(stats?.albumCount ?? 0)),
            (
                "originals",
                .object([("count", .int(stats?.originalCount ?? 0)), ("bytes", .int(stats?.originalBytes ?? 0))])
            ),
            ("databaseBytes", .int(report.databaseBytes)),
            (
                "lastChange",
                stats.flatMap { stats in
                    stats.latestChangeDate.map {
                        .object([
                            ("token", .string(stats.latestChangeToken.stringValue)), ("date", date($0)),
                        ])
                    }
                } ?? .null
            ),
            (
                "inbox",
                .object([
                    ("path", .string(report.inbox)), ("exists", .bool(report.inboxCount.exists)),
                    ("waiting", .int(report.inboxCount.files)),
                ])
            ),
            ("claimsInFlight", .int(report.claims)),
            ("waitingForPartner", .int(report.daemonRunning ? report.daemonStatus?.waitingForPartner ?? 0 : 0)),
            (
                "rejected",
                .object([
                    ("path", .string(report.rejected)), ("files", .int(report.rejectedCount.files)),
                    ("bytes", .int(report.rejectedCount.bytes)),
                ])
            ),
            ("healthy", .bool(report.problems.isEmpty)),
            (
                "problems",
                .array(
                    report.problems.map { problem in
                        .object([
                            ("code", .string(problem.code)), ("count", .int(problem.count)),
                            ("oldestPath", .string(problem.oldestPath)),
                            ("since", .string(problem.since?.iso8601)), ("message", .string(problem.message)),
                        ])
                    })
            ),
        ]
        return .object(members)
    }
}
