import Foundation
import HeapStatistics
import MediaProbe
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

@testable import Ingest
import PhotodropTelemetry
import PhotodropConcurrency

@Suite("Claim payloads", .timeLimit(.minutes(3)))
struct ClaimPayloadTests {
    @Test func roundTripsEveryField() throws {
        let identity = FileIdentity(
            device: 2049, inode: 1_234_567, size: 987_654,
            modificationTime: UTCTimestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789))
        for album in ["Trip \"2024\"\n", "Caf\u{E9}", nil] as [String?] {
            let payload = ClaimPayload(
                source: "Trip/sub/IMG \\ 1.jpg", album: album, identity: identity, graceExpired: true)
            let decoded = try #require(ClaimPayload(decoding: payload.encoded))
            #expect(decoded == payload)
            #expect(decoded.originalName == "IMG \\ 1.jpg")
        }
    }

    @Test("a name that is not UTF-8 and an incomplete verdict round-trip through Codable")
    func roundTripsNamesAndVerdicts() throws {
        let identity = FileIdentity(
            device: 1, inode: 2, size: 3, modificationTime: UTCTimestamp(seconds: 4, nanoseconds: 5))
        let name = FileNameEncoding.string(fromBytes: Array("Trip/caf".utf8) + [0xFC] + Array(".jpg".utf8)).text
        let payload = ClaimPayload(
            source: name, album: "Trip", identity: identity,
            incompleteVerdict: IncompleteVerdict(identity: identity, code: "corrupt", message: "cut", mime: nil))
        let decoded = try #require(ClaimPayload(decoding: payload.encoded))
        #expect(decoded == payload)
        #expect(FileNameEncoding.bytes(of: decoded.source).contains(0xFC))
    }

    /// Journal entries exactly as photodrop wrote them before its payloads were `Codable` (printed by the previous
    /// release's encoder): a daemon upgraded with files in flight must still find where each came from.
    @Test("claims journalled by the previous version are read after an upgrade")
    func readsThePreviousVersionsEntries() throws {
        let written = [
            #"{"source":"Trip/IMG_1.jpg","album":"Trip","device":2049,"inode":1234567,"size":42000,"mtime":1700000000,"mtimeNanoseconds":123456789,"graceExpired":false}"#,
            #"{"source":"loose \"quoted\".jpg","album":null,"device":2049,"inode":1234567,"size":42000,"mtime":1700000000,"mtimeNanoseconds":123456789,"graceExpired":true}"#,
            #"{"source":"Trip/caf\udcfc.jpg","album":"Trip","device":2049,"inode":1234567,"size":42000,"mtime":1700000000,"mtimeNanoseconds":123456789,"graceExpired":false,"incomplete":{"code":"corrupt","message":"JPEG cut short\tat 40 KB","mime":"image/jpeg"}}"#,
        ]
        let identity = FileIdentity(
            device: 2049, inode: 1_234_567, size: 42_000,
            modificationTime: UTCTimestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789))
        let decoded = try written.map { try #require(ClaimPayload(decoding: Array($0.utf8)), "\($0)") }
        #expect(decoded[0] == ClaimPayload(source: "Trip/IMG_1.jpg", album: "Trip", identity: identity))
        #expect(
            decoded[1]
                == ClaimPayload(source: "loose \"quoted\".jpg", album: nil, identity: identity, graceExpired: true))
        #expect(FileNameEncoding.bytes(of: decoded[2].source) == Array("Trip/caf".utf8) + [0xFC] + Array(".jpg".utf8))
        #expect(decoded[2].incompleteVerdict?.code == "corrupt")
        #expect(decoded[2].incompleteVerdict?.message == "JPEG cut short\tat 40 KB")
        #expect(decoded[2].incompleteVerdict?.mime == "image/jpeg")
        #expect(decoded[2].incompleteVerdict?.identity == identity)
        // What this version writes is read back the same way.
        for payload in decoded { #expect(ClaimPayload(decoding: payload.encoded) == payload) }
    }

    @Test func rejectsWhatItDidNotWrite() {
        #expect(ClaimPayload(decoding: Array("{}".utf8)) == nil)
        #expect(ClaimPayload(decoding: Array("not json".utf8)) == nil)
        #expect(ClaimPayload(decoding: Array("{\"source\":\"a\",\"device\":\"x\"}".utf8)) == nil)
    }
}

@Suite("Pipeline primitives", .timeLimit(.minutes(3)))
struct PipelinePrimitiveTests {
    @Test func receiveAvailableTakesWhatIsQueuedWithoutWaiting() async throws {
        let queue = BoundedQueue<Int>(capacity: 4)
        #expect(queue.receiveAvailable(upTo: 10).isEmpty)
        for value in 0..<4 { try await queue.send(value) }
        let blocked = Task { try await queue.send(4) }  // waits: the queue is full
        while queue.count < 4 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(20))
        #expect(queue.receiveAvailable(upTo: 3) == [0, 1, 2])
        try await blocked.value  // room was made: the waiting sender got in
        #expect(queue.receiveAvailable(upTo: 10) == [3, 4])
    }

    @Test func mailboxDeliversPostedFirstAndTimesOut() async {
        let mailbox = Mailbox<Int>(capacity: 2)
        await mailbox.send(1)
        mailbox.post(100)
        #expect(await mailbox.receive(until: nil) == [100, 1])
        let start = ContinuousClock.now
        #expect(await mailbox.receive(until: .now + .milliseconds(50)) == [])
        #expect(ContinuousClock.now - start >= .milliseconds(45))
    }

    @Test func mailboxSendWaitsWhileFullAndReceiveWakesOnAMessage() async throws {
        let mailbox = Mailbox<Int>(capacity: 1)
        await mailbox.send(1)
        let waiting = Task { await mailbox.send(2) }
        try await Task.sleep(for: .milliseconds(20))
        #expect(await mailbox.receive(until: nil) == [1])
        await waiting.value
        #expect(await mailbox.receive(until: nil) == [2])
        let receiver = Task { await mailbox.receive(until: .now + .seconds(30)) }
        try await Task.sleep(for: .milliseconds(20))
        mailbox.post(7)
        #expect(await receiver.value == [7])
    }

    @Test("a mailbox wait keeps its own deadline, earlier or later than the one before, whatever woke the last")
    func mailboxDeadlinesAfterEarlyWakes() async throws {
        let mailbox = Mailbox<Int>(capacity: 4)
        // A long wait ended by a message, then a short one: the short deadline must end it, not the long one. The
        // long deadline is an hour, so that the bound telling the two apart can allow for a starved pool (under the
        // full suite on 2 cores, a resumed task has waited tens of seconds for a thread).
        let long = Task { await mailbox.receive(until: .now + .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(20))
        mailbox.post(1)
        #expect(await long.value == [1])
        var start = ContinuousClock.now
        #expect(await mailbox.receive(until: .now + .milliseconds(80)) == [])
        var waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(75) && waited < .seconds(120), "the short deadline ended it: \(waited)")
        // A short wait ended by a message, then a longer one: the first deadline passing does not end the second.
        let short = Task { await mailbox.receive(until: .now + .milliseconds(60)) }
        try await Task.sleep(for: .milliseconds(10))
        mailbox.post(2)
        #expect(await short.value == [2])
        start = .now
        #expect(await mailbox.receive(until: .now + .milliseconds(300)) == [])
        waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(295), "not ended by the earlier wait's deadline: \(waited)")
    }

    @Test("waits ended early by messages leave nothing behind: 20,000 of them, with a minute's deadline each")
    func mailboxEarlyWakesHoldNoMemory() async throws {
        // Before, each wait with a deadline scheduled its own timer block, kept until the deadline even when a
        // message ended the wait at once: a watch fed 50 files/s held thousands (megabytes). Here every message is
        // posted only once the receiver is waiting, so each of the 20,000 waits is ended early. The heap in use
        // (glibc's `mallinfo2`, every arena, large buffers apart) is compared before and after. The blocks grew it
        // by about 530 bytes a wait (10 MB a round), in every round; the tests running at the same time move it too,
        // either way, and on a loaded machine by as much (14 MB once in CI). So a round that grew less than 4 MB
        // shows there is no such leak; a leak would make each of up to five rounds grow.
        let mailbox = Mailbox<Int>(capacity: 1024)
        let count = 20_000
        var growth: [Int] = []
        for _ in 0..<5 {
            let sender = Thread {
                for index in 0..<count {
                    var spins = 0
                    while !mailbox.hasWaitingReceiver {
                        spins += 1
                        if spins < 100 { sched_yield() } else { usleep(50) }
                    }
                    mailbox.post(index)
                }
            }
            let before = photodrop_test_heap_in_use()
            sender.start()
            var received = 0
            var waits = 0
            while received < count {
                waits += 1
                received += await mailbox.receive(until: .now + .seconds(60)).count
            }
            let after = photodrop_test_heap_in_use()
            #expect(waits == count, "every message ended a wait (\(waits) waits)")
            growth.append(Int(after) - Int(before))
            if growth.last! < 4 << 20 { break }
        }
        #expect(growth.contains { $0 < 4 << 20 }, "the heap grew in every round: \(growth) bytes over \(count) waits each")
    }

    @Test func backoffDoublesUpToFiveMinutes() {
        #expect(WatchLoop.backoff(attempt: 1) == .seconds(1))
        #expect(WatchLoop.backoff(attempt: 2) == .seconds(2))
        #expect(WatchLoop.backoff(attempt: 5) == .seconds(16))
        #expect(WatchLoop.backoff(attempt: 40) == .seconds(300))
    }
}

@Suite("Worker", .timeLimit(.minutes(3)))
struct IngestWorkerTests {
    @Test func oneReadGivesDigestAndProbe() throws {
        let folder = try TemporaryFolder("worker")
        let path = try JPEGFixture.write(1, to: "a.jpg", in: folder)
        let worker = try IngestWorker(policy: .appleDefault, truncatedFiles: .wait)
        let output = worker.process(try IngestJob(path: path, displayPath: "a.jpg", album: nil, originalName: "a.jpg"))
        guard case .accepted(let probe, let digest) = output.finding else {
            Issue.record("not accepted: \(output.finding)")
            return
        }
        #expect(probe.kind == .photo && probe.mime == "image/jpeg")
        #expect(digest.sha256.hex == sha256Hex(Data(JPEGFixture.bytes(1))))
    }

    @Test func truncatedFilesWaitInWatchAndAreRejectedInImport() throws {
        let folder = try TemporaryFolder("worker")
        let path = folder.url("cut.jpg")
        try Data(JPEGFixture.bytes(2).prefix(120)).write(to: URL(fileURLWithPath: path))
        let job = try IngestJob(path: path, displayPath: "cut.jpg", album: nil, originalName: "cut.jpg")
        let waiting = try IngestWorker(policy: .appleDefault, truncatedFiles: .wait).process(job)
        guard case .truncated = waiting.finding else {
            Issue.record("expected truncated, got \(waiting.finding)")
            return
        }
        var expired = job
        expired.graceExpired = true
        let rejectedAfterGrace = try IngestWorker(policy: .appleDefault, truncatedFiles: .wait).process(expired)
        let rejectedInImport = try IngestWorker(policy: .appleDefault, truncatedFiles: .reject).process(job)
        for output in [rejectedAfterGrace, rejectedInImport] {
            guard case .rejected(let probe, _) = output.finding else {
                Issue.record("expected rejected, got \(output.finding)")
                continue
            }
            #expect(probe.rejection == .corrupt)
        }
    }

    @Test func aFileChangedSinceItSettledIsNotTaken() throws {
        let folder = try TemporaryFolder("worker")
        let path = try JPEGFixture.write(3, to: "a.jpg", in: folder)
        var info = stat()
        stat(path, &info)
        var identity = FileIdentity(FileStatus(info))
        identity.size -= 1
        let job = try IngestJob(
            path: path, displayPath: "a.jpg", album: nil, originalName: "a.jpg", expectedIdentity: identity)
        let output = try IngestWorker(policy: .appleDefault, truncatedFiles: .wait).process(job)
        guard case .changed = output.finding else {
            Issue.record("expected changed, got \(output.finding)")
            return
        }
    }

    @Test func knownContentSkipsTheProbe() throws {
        let folder = try TemporaryFolder("worker")
        let path = try JPEGFixture.write(4, to: "a.jpg", in: folder)
        let asked = Locked<[String?]>([])
        let worker = try IngestWorker(policy: .appleDefault, truncatedFiles: .wait) { _, album in
            asked.withLock { $0.append(album) }
            return KnownContent(assetID: "X/L0/001", mime: "image/jpeg", isVideo: false, isComplete: true)
        }
        let output = worker.process(try IngestJob(path: path, displayPath: "a.jpg", album: "Trip", originalName: "a.jpg"))
        guard case .known(_, let known) = output.finding else {
            Issue.record("expected known, got \(output.finding)")
            return
        }
        #expect(known.assetID == "X/L0/001")
        #expect(asked.value == ["Trip"])
    }

    @Test func unreadableFilesFail() throws {
        let worker = try IngestWorker(policy: .appleDefault, truncatedFiles: .wait)
        let folder = try TemporaryFolder("unreadable")
        let output = worker.process(
            try IngestJob(path: folder.url("x.jpg"), displayPath: "x.jpg", album: nil, originalName: "x.jpg"))
        guard case .failed(let failure) = output.finding else {
            Issue.record("expected failed, got \(output.finding)")
            return
        }
        // Typed to the edge: an I/O failure with its errno and path, turned into text only when asked.
        guard case .io(let error) = failure else {
            Issue.record("expected an I/O failure, got \(failure)")
            return
        }
        #expect(error.code == Errno(rawValue: ENOENT))
        #expect(error.path?.hasSuffix("x.jpg") == true)
        #expect(failure.healthKind == .file)
        #expect(failure.description.contains("x.jpg"))
    }
}

@Suite("Finished claims kept for their removal", .timeLimit(.minutes(1)))
struct FinishedClaimsTests {
    func job(_ id: Int64?) throws -> IngestJob {
        try IngestJob(path: "/tmp", displayPath: "a.jpg", album: nil, originalName: "a.jpg", claimID: id)
    }

    @Test("a failed removal goes back in front of what came since; jobs without a claim add nothing; past the limit nothing is kept")
    func keepOrderAndLimit() throws {
        var claims = FinishedClaims()
        try claims.add(job(1), outcome: nil)
        try claims.add(job(nil), outcome: nil)
        try claims.add(job(2), outcome: nil)
        let failed = claims.take()
        #expect(failed.ids == [1, 2] && claims.isEmpty)
        try claims.add(job(3), outcome: nil)
        claims.keep(failed)
        #expect(claims.take().ids == [1, 2, 3])
        #expect(claims.isEmpty)
        var full = FinishedClaims()
        full.keep(FinishedClaims.Batch(ids: Array(1...Int64(FinishedClaims.limit)), records: []))
        try full.add(job(0), outcome: nil)
        let more = full.take()
        #expect(more.ids.count == FinishedClaims.limit + 1)
        full.keep(more)
        #expect(full.isEmpty, "past the limit a failed batch is not kept (the next start drops its entries)")
    }
}
