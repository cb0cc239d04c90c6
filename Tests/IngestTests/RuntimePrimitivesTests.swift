import Foundation
import PhotodropSystem
import Synchronization
import Testing

@testable import Ingest

@Suite("UnixSignalSequence")
struct UnixSignalSequenceTests {
    @Test func deliversSignalsInsteadOfTheirDefaultAction() async throws {
        // SIGUSR1/SIGUSR2 would terminate the test process by default: receiving them proves the trap.
        let signals = UnixSignalSequence(trapping: .user1, .user2)
        let received = Task {
            var seen: [UnixSignal] = []
            for await signal in signals {
                seen.append(signal)
                if seen.count == 2 { break }
            }
            return seen
        }
        try await Task.sleep(for: .milliseconds(50))
        kill(getpid(), SIGUSR1)
        try await Task.sleep(for: .milliseconds(50))
        kill(getpid(), SIGUSR2)
        #expect(await received.value == [.user1, .user2])
        #expect(UnixSignal.terminate.number == SIGTERM && UnixSignal.interrupt.description == "SIGINT")
    }
}

@Suite("ProgressRenderer")
struct ProgressRendererTests {
    @Test func fullLineWithBarRateAndETA() {
        let line = ProgressRenderer.render(
            ProgressSnapshot(
                filesDone: 1234, filesTotal: 10_000, bytesDone: 512_300_000, bytesTotal: 2_100_000_000,
                elapsed: .seconds(6)),
            width: 120)
        #expect(line.hasPrefix("[=========>"))
        #expect(line.contains("] 1,234/10,000 files  512 MB/2.10 GB  85.4 MB/s  206 files/s  ETA 0:19"))
        #expect(line.count <= 120)
    }

    @Test func unknownTotalsHaveNoBarAndNoETA() {
        let line = ProgressRenderer.render(
            ProgressSnapshot(filesDone: 50, filesTotal: nil, bytesDone: 5_000, bytesTotal: nil, elapsed: .seconds(2)),
            width: 80)
        #expect(line == "50 files  5.00 KB  2.50 KB/s  25 files/s")
    }

    @Test func theStartShowsNoRateYet() {
        let line = ProgressRenderer.render(
            ProgressSnapshot(filesDone: 0, filesTotal: 10, bytesDone: 0, bytesTotal: 100, elapsed: .milliseconds(50)),
            width: 80)
        #expect(line == "[>                                       ] 0/10 files  0 B/100 B")
    }

    @Test func doneIsAFullBar() {
        let line = ProgressRenderer.render(
            ProgressSnapshot(filesDone: 3, filesTotal: 3, bytesDone: 3_000, bytesTotal: 3_000, elapsed: .seconds(1)),
            width: 120)
        #expect(line.hasPrefix("[========================================] 3/3 files"))
        #expect(line.hasSuffix("ETA 0:00"))
    }

    @Test(arguments: [20, 40, 60, 80, 200])
    func neverWiderThanTheTerminal(_ width: Int) {
        let line = ProgressRenderer.render(
            ProgressSnapshot(
                filesDone: 123_456, filesTotal: 1_000_000, bytesDone: 987_654_321_000, bytesTotal: 9_876_543_210_000,
                elapsed: .seconds(3_600)),
            width: width)
        #expect(line.count <= width)
        #expect(line.contains("[") == (width >= 100))
    }

    @Test func units() {
        #expect(ProgressRenderer.grouped(0) == "0")
        #expect(ProgressRenderer.grouped(1_234_567) == "1,234,567")
        #expect(ProgressRenderer.bytes(999) == "999 B")
        #expect(ProgressRenderer.bytes(1_500) == "1.50 KB")
        #expect(ProgressRenderer.bytes(12_345_678) == "12.3 MB")
        #expect(ProgressRenderer.bytes(1_210_000_000) == "1.21 GB")
        #expect(ProgressRenderer.duration(75) == "1:15")
        #expect(ProgressRenderer.duration(3725) == "1:02:05")
    }

    @Test func noTerminalMeansNoProgressObject() throws {
        let folder = try TemporaryFolder("progress")
        let fd = open(folder.url("out"), O_CREAT | O_WRONLY, 0o644)
        defer { close(fd) }
        #expect(TerminalProgress(fileDescriptor: fd) == nil)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        #expect(TerminalProgress(fileDescriptor: ends[1]) == nil)
        close(ends[0])
        close(ends[1])
    }

    @Test func aTerminalGetsCarriageReturnLines() throws {
        // A pseudo-terminal stands in for a real one. posix_openpt and friends are not imported by Swift's Glibc
        // module, so this is what they do: open /dev/ptmx, unlock (TIOCSPTLCK), ask the number (TIOCGPTN).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        #expect(ioctl(master, 0x4004_5431, &unlock) == 0)  // TIOCSPTLCK
        #expect(ioctl(master, 0x8004_5430, &number) == 0)  // TIOCGPTN
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        defer { close(slave) }
        #expect(TerminalProgress(fileDescriptor: slave, environment: ["TERM": "dumb"]) == nil)
        let progress = try #require(TerminalProgress(fileDescriptor: slave, minimumInterval: .seconds(60)))
        let snapshot = ProgressSnapshot(
            filesDone: 1, filesTotal: 2, bytesDone: 10, bytesTotal: 20, elapsed: .seconds(1))
        progress.update(snapshot)
        progress.update(snapshot)  // throttled: not drawn again within a minute
        progress.update(snapshot, force: true)
        progress.finish()
        // A pty hands out what has arrived so far: read until the last line is there (or a second passes quietly).
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var text = ""
        while !(text.components(separatedBy: "1/2 files").count - 1 == 2 && text.hasSuffix("\r\u{1B}[K")) {
            var ready = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 1000) == 1 else { break }
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
            text = String(decoding: bytes, as: UTF8.self)
        }
        #expect(text.components(separatedBy: "1/2 files").count - 1 == 2)
        #expect(text.hasPrefix("\r[") && text.hasSuffix("\r\u{1B}[K"))
    }
}

@Suite("BoundedQueue and WorkerPool")
struct BoundedQueueTests {
    @Test func itemsComeOutInOrderAndFinishDrains() async throws {
        let queue = BoundedQueue<Int>(capacity: 4)
        let producer = Task {
            for index in 0..<100 { try await queue.send(index) }
            queue.finish()
        }
        var received: [Int] = []
        while let value = await queue.receive() { received.append(value) }
        try await producer.value
        #expect(received == Array(0..<100))
        await #expect(throws: BoundedQueue<Int>.Finished.self) { try await queue.send(1) }
    }

    @Test func aFullQueueMakesTheSenderWait() async throws {
        let queue = BoundedQueue<Int>(capacity: 2)
        let sent = Locked(0)
        let producer = Task {
            for index in 0..<5 {
                try await queue.send(index)
                sent.withLock { $0 += 1 }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.value == 2)
        #expect(queue.count == 2)
        #expect(await queue.receive() == 0)
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.value == 3)
        for expected in 1..<5 { #expect(await queue.receive() == expected) }
        try await producer.value
        #expect(queue.count == 0)
    }

    @Test func cancellingWaitersWakesThem() async throws {
        let queue = BoundedQueue<Int>(capacity: 1)
        let receiver = Task { await queue.receive() }
        try await Task.sleep(for: .milliseconds(50))
        receiver.cancel()
        #expect(await receiver.value == nil)

        try await queue.send(1)
        let sender = Task { try await queue.send(2) }
        try await Task.sleep(for: .milliseconds(50))
        sender.cancel()
        await #expect(throws: CancellationError.self) { try await sender.value }
        #expect(await queue.receive() == 1)
        #expect(queue.count == 0)  // the cancelled item was not queued
    }

    @Test func finishWakesWaitingReceiversWithNil() async throws {
        let queue = BoundedQueue<String>(capacity: 3)
        let receivers = (0..<3).map { _ in Task { await queue.receive() } }
        try await Task.sleep(for: .milliseconds(50))
        queue.finish()
        for receiver in receivers { #expect(await receiver.value == nil) }
    }

    @Test func manyProducersAndConsumersLoseNothing() async throws {
        let queue = BoundedQueue<Int>(capacity: 8)
        let total = Locked(0)
        let count = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask { for index in 0..<2_500 { try await queue.send(producer * 10_000 + index) } }
            }
            let consumers = Task {
                try await WorkerPool.run(
                    workers: 3, jobs: queue, makeState: { _ in 0 },
                    process: { processed, job in
                        processed += 1
                        total.withLock { $0 += job }
                        count.withLock { $0 += 1 }
                    })
            }
            try await group.waitForAll()
            queue.finish()
            try await consumers.value
        }
        #expect(count.value == 10_000)
        let expected = (0..<4).reduce(0) { sum, producer in sum + (0..<2_500).reduce(0) { $0 + producer * 10_000 + $1 }
        }
        #expect(total.value == expected)
    }

    @Test func eachWorkerKeepsItsOwnState() async throws {
        let queue = BoundedQueue<Int>(capacity: 16)
        let seen = Locked<[Int: Int]>([:])
        let pool = Task {
            try await WorkerPool.run(
                workers: 4, jobs: queue,
                makeState: { worker in (worker, 0) },
                process: { state, _ in
                    state.1 += 1
                    let (worker, processed) = state
                    seen.withLock { $0[worker] = processed }
                    try? await Task.sleep(for: .milliseconds(1))
                })
        }
        for index in 0..<200 { try await queue.send(index) }
        queue.finish()
        try await pool.value
        #expect(seen.value.values.reduce(0, +) == 200)
        #expect(seen.value.keys.allSatisfy { (0..<4).contains($0) })
    }

    @Test func aFailingWorkerSetupIsRethrown() async {
        struct SetupFailed: Error {}
        let queue = BoundedQueue<Int>(capacity: 1)
        await #expect(throws: SetupFailed.self) {
            try await WorkerPool.run(
                workers: 2, jobs: queue,
                makeState: { worker -> Int in
                    if worker == 1 { throw SetupFailed() }
                    return worker
                }, process: { _, _ in })
        }
    }
}

@Suite("WorkerThreadPriority")
struct WorkerThreadPriorityTests {
    @Test("raises the nice value of the calling thread only, and never lowers it")
    func lowersOnlyTheCallingThread() throws {
        let before = WorkerThreadPriority.current
        let seen = Mutex<[Int32]>([])
        let thread = Thread {
            WorkerThreadPriority.lowerCurrentThread()
            let lowered = WorkerThreadPriority.current
            WorkerThreadPriority.lowerCurrentThread(to: 5)  // lower than now: left alone
            seen.withLock { $0 = [lowered, WorkerThreadPriority.current] }
        }
        thread.start()
        #expect(eventuallyTrue { seen.withLock { $0.count == 2 } })
        let values = seen.withLock { $0 }
        #expect(values == [max(before, WorkerThreadPriority.niceness), max(before, WorkerThreadPriority.niceness)])
        #expect(WorkerThreadPriority.current == before, "the test's own thread keeps its priority")
    }

    private func eventuallyTrue(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}
