import PhotodropSystem
import PhotodropTelemetry
import Synchronization
import Testing
import TestFixtures

@testable import Ingest

/// Nodes sharing one inbox each take the files they prefer first (rendezvous hashing of folder and pairing stem).
@Suite("InboxShare: which files of a shared inbox a node takes first")
struct InboxShareTests {
    private static let paths = (0..<3000).map { "Album \($0 % 7)/IMG_\($0).JPG" }

    @Test("every file has one preferred node, the same for every node, and the nodes get about equal shares")
    func evenAndAgreed() throws {
        let nodes = ["alpha", "beta", "gamma"]
        var counts: [String: Int] = [:]
        for path in Self.paths {
            let preferred = try #require(InboxShare.preferredNode(of: path, among: nodes))
            // The order a node lists the nodes in changes nothing.
            #expect(InboxShare.preferredNode(of: path, among: nodes.reversed()) == preferred)
            #expect(InboxShare.preferredNode(of: path, among: [nodes[1], nodes[2], nodes[0]]) == preferred)
            counts[preferred, default: 0] += 1
        }
        for node in nodes {
            let share = Double(counts[node] ?? 0) / Double(Self.paths.count)
            #expect(share > 0.28 && share < 0.39, "\(node): \(share)")
        }
        #expect(InboxShare.preferredNode(of: "a.jpg", among: []) == nil)
        #expect(InboxShare.preferredNode(of: "a.jpg", among: ["solo"]) == "solo")
    }

    @Test("a node that leaves moves only its own files; one that joins takes only files from the others")
    func minimalMoves() throws {
        let three = ["alpha", "beta", "gamma"]
        let two = ["alpha", "gamma"]
        var moved = 0
        for path in Self.paths {
            let before = try #require(InboxShare.preferredNode(of: path, among: three))
            let after = try #require(InboxShare.preferredNode(of: path, among: two))
            if before != "beta" { #expect(after == before, "\(path) moved from \(before) though beta left") }
            if before == "beta" { moved += 1 }
        }
        #expect(moved > 800 && moved < 1200)
    }

    @Test("the files of a pair and their sidecars prefer the same node")
    func pairsTogether() {
        let nodes = ["n1", "n2", "n3", "n4"]
        for index in 0..<200 {
            let names = [
                "IMG_\(index).HEIC", "IMG_\(index).MOV", "IMG_E\(index).HEIC", "IMG_\(index).AAE",
                "IMG_\(index).HEIC.xmp", "IMG_\(index).HEIC.json",
            ]
            let preferred = Set(names.map { InboxShare.preferredNode(of: "Trip/\($0)", among: nodes) })
            #expect(preferred.count == 1, "\(index): \(preferred)")
        }
        // The same names in two folders are two different files, spread independently.
        let spread = Set((0..<50).map { InboxShare.preferredNode(of: "Folder \($0)/IMG_1.HEIC", among: nodes) })
        #expect(spread.count == nodes.count)
    }

    @Test("the score is the same in every process and on every machine (not Swift's seeded Hasher)")
    func stableScore() {
        // Pinned: nodes of two photodrop versions on one inbox must agree, or they race for files again.
        #expect(InboxShare.score(node: "alpha", key: "Trip/img_1") == InboxShare.score(node: "alpha", key: "Trip/img_1"))
        #expect(InboxShare.score(node: "alpha", key: "Trip/img_1") == 0xe5a6_c89d_be54_00aa)  // FNV-1a 64 then SplitMix64, computed independently in Python
        #expect(InboxShare.score(node: "alpha", key: "Trip/img_1") != InboxShare.score(node: "alph", key: "aTrip/img_1"))
    }

    @Test("the sharing nodes: live by the catalog and with a staging folder in this inbox; refreshed once a second")
    func sharers() throws {
        let inbox = try TemporaryFolder("share")
        for node in ["alpha", "beta", "gamma"] { try inbox.mkdir(".photodrop/claimed/\(node)") }
        let live = Mutex(["alpha", "beta", "delta"])
        let lines = Mutex<[String]>([])
        let logger = Logger(
            label: "test", level: .info, format: .text, sink: LogSink { line in lines.withLock { $0.append(line) } })
        let share = InboxShare(
            node: "alpha", inbox: FolderRoot(path: inbox.path), stagingParent: ".photodrop/claimed", logger: logger,
            liveNodes: { live.withLock { $0 } })
        #expect(share.sharers == ["alpha"], "alone until the first refresh")
        let start = ContinuousClock.Instant.now
        share.refreshIfDue(at: start)
        // gamma has a folder here but is not running; delta runs but watches another inbox.
        #expect(share.sharers == ["alpha", "beta"])
        #expect(lines.withLock { $0 }.contains { $0.contains("the inbox is shared with other nodes") && $0.contains("alpha,beta") })
        for path in Self.paths.prefix(300) {
            let preferred = InboxShare.preferredNode(of: path, among: ["alpha", "beta"])
            #expect(share.isLeftToOthers(path) == (preferred == "beta"), "\(path)")
        }
        #expect(Self.paths.contains { share.isLeftToOthers($0) } && Self.paths.contains { !share.isLeftToOthers($0) })

        // beta stops: not before the refresh interval has passed, then this node takes every file.
        live.withLock { $0 = ["alpha", "delta"] }
        share.refreshIfDue(at: start + .milliseconds(500))
        #expect(share.sharers == ["alpha", "beta"])
        share.refreshIfDue(at: start + .seconds(1))
        #expect(share.sharers == ["alpha"])
        #expect(!Self.paths.contains { share.isLeftToOthers($0) })
        #expect(lines.withLock { $0 }.contains { $0.contains("no other node watches the inbox now") })

        // gamma starts again; the list of live nodes does not name this node yet (its first heartbeat): it counts.
        live.withLock { $0 = ["gamma", "beta"] }
        share.refreshIfDue(at: start + .seconds(2))
        #expect(share.sharers == ["alpha", "beta", "gamma"])
    }
}
