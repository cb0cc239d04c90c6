import Foundation
import PhotodropSystem
import Synchronization
import TestFixtures
import Testing

@testable import Ingest
import PhotodropConcurrency

/// Where the tests' pools put outputs nobody reads: room for more than any test's jobs, so that no thread waits.
private func discardedOutputs() -> BoundedQueue<Void> { BoundedQueue(capacity: 100_000) }

@Suite("BoundedQueue and WorkerThreads", .timeLimit(.minutes(3)))
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

    @Test("a full queue makes the sender wait until it is down to half, then lets it fill the queue again")
    func aFullQueueMakesTheSenderWait() async throws {
        let queue = BoundedQueue<Int>(capacity: 4)
        let sent = Locked(0)
        let producer = Task {
            for index in 0..<10 {
                try await queue.send(index)
                sent.withLock { $0 += 1 }
            }
        }
        #expect(await eventually(timeout: 10) { sent.value == 4 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.value == 4 && queue.count == 4, "the fifth send waits")
        #expect(await queue.receive() == 0)
        #expect(await queue.receive() == 1)
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.value == 4 && queue.count == 2, "still waiting: the queue is not below half")
        #expect(await queue.receive() == 2)
        // Below half: the waiting element goes in, and the producer sends two more before it waits again.
        #expect(await eventually(timeout: 10) { sent.value == 7 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.value == 7 && queue.count == 4)
        for expected in 3..<10 { #expect(await queue.receive() == expected) }
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
                try await WorkerThreads.run(
                    count: 3, name: "test worker", jobs: queue, results: discardedOutputs(), makeState: { _ in 0 },
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
            try await WorkerThreads.run(
                count: 4, name: "test worker", jobs: queue, results: discardedOutputs(),
                makeState: { worker in (worker, 0) },
                process: { state, _ in
                    state.1 += 1
                    let (worker, processed) = state
                    seen.withLock { $0[worker] = processed }
                    usleep(1_000)
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
            try await WorkerThreads.run(
                count: 2, name: "test worker", jobs: queue, results: discardedOutputs(),
                makeState: { worker -> Int in
                    if worker == 1 { throw SetupFailed() }
                    return worker
                }, process: { _, _ in })
        }
    }
}

@Suite("WorkerThreads: threads of their own", .timeLimit(.minutes(3)))
struct WorkerThreadsTests {
    private static var niceValue: Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    @Test("jobs run on the pool's threads at its nice value, never on the caller's thread or Swift's pool")
    func jobsRunOnLoweredThreadsOfTheirOwn() async throws {
        let before = Self.niceValue
        let queue = BoundedQueue<Int>(capacity: 8)
        let seen = Locked<[(name: String, nice: Int32)]>([])
        let pool = Task {
            try await WorkerThreads.run(
                count: 2, name: "niced worker", niceness: 7, jobs: queue, results: discardedOutputs(), makeState: { _ in () },
                process: { _, _ in
                    let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                    let name = comm.trimmingCharacters(in: .newlines)
                    seen.withLock { $0.append((name, Self.niceValue)) }
                })
        }
        for index in 0..<20 { try await queue.send(index) }
        queue.finish()
        try await pool.value
        let runs = seen.value
        #expect(runs.count == 20)
        #expect(runs.allSatisfy { $0.name.hasPrefix("niced worker ") }, "\(runs.map(\.name))")
        #expect(runs.allSatisfy { $0.nice == max(before, 7) }, "\(runs.map(\.nice))")
        #expect(Self.niceValue == before, "the test's own thread keeps its priority")
    }

    @Test("a thread parked on an empty queue blocks no task, and cancelling the caller stops the threads")
    func parkedThreadsStopWhenTheCallerIsCancelled() async throws {
        let queue = BoundedQueue<Int>(capacity: 4)
        let processed = Locked(0)
        let pool = Task {
            try await WorkerThreads.run(
                count: 3, name: "parked worker", jobs: queue, results: discardedOutputs(), makeState: { _ in () },
                process: { _, _ in processed.withLock { $0 += 1 } })
        }
        try await queue.send(1)
        // Generous: under the whole suite's load the task that starts the threads can wait long for a cooperative
        // thread (the wait ends as soon as the job is processed).
        #expect(await eventually(timeout: 60) { processed.value == 1 })
        // The three threads are parked in `receiveBlocking`; tasks still run (this one, for instance).
        let elsewhere = await Task { 42 }.value
        #expect(elsewhere == 42)
        pool.cancel()
        try await pool.value
        // The queue was not finished: a later send still queues, and nobody takes it.
        try await queue.send(2)
        #expect(queue.count == 1 && processed.value == 1)
    }

    @Test("a thread blocked in sendBlocking on a full queue is released by a task's receive, and by finish()")
    func blockingSendersAreReleased() async throws {
        let queue = BoundedQueue<Int>(capacity: 1)
        let outcomes = Locked<[String]>([])
        try queue.sendBlocking(contentsOf: [1])
        for value in [2, 3] {
            Thread {
                do {
                    try queue.sendBlocking(contentsOf: [value])
                    outcomes.withLock { $0.append("sent \(value)") }
                } catch {
                    outcomes.withLock { $0.append("finished \(value)") }
                }
            }.start()
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(outcomes.value.isEmpty, "both threads wait while the queue is full")
        #expect(await queue.receive() == 1)
        #expect(await eventually(timeout: 10) { outcomes.value.count == 1 })
        queue.finish()
        #expect(await eventually(timeout: 10) { outcomes.value.count == 2 })
        #expect(Set(outcomes.value.map { $0.prefix(4) }) == ["sent", "fini"])
        #expect(await queue.receive() != nil, "the released sender's element was queued")
    }

    @Test("a batch sent from a thread arrives in order, and blocks while the queue is full")
    func batchesFromAThread() async throws {
        let queue = BoundedQueue<Int>(capacity: 4)
        let done = Locked(false)
        Thread {
            try? queue.sendBlocking(contentsOf: Array(0..<10))
            done.value = true
        }.start()
        #expect(await eventually(timeout: 10) { queue.count == 4 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(!done.value, "six elements wait for room")
        var received: [Int] = []
        while received.count < 10, let next = await queue.receive() { received.append(next) }
        #expect(received == Array(0..<10))
        #expect(await eventually(timeout: 10) { done.value })
        guard case .empty = queue.tryReceive() else {
            Issue.record("the queue should be empty")
            return
        }
        queue.finish()
        guard case .finished = queue.tryReceive() else {
            Issue.record("a finished, drained queue says so")
            return
        }
        #expect(throws: BoundedQueue<Int>.Finished.self) { try queue.sendBlocking(contentsOf: [1]) }
    }

    @Test("a pool with results sends every output, in batches and when it runs out of jobs")
    func resultsArriveInBatchesAndWhenIdle() async throws {
        let jobs = BoundedQueue<Int>(capacity: 64)
        let results = BoundedQueue<Int>(capacity: 64)
        let pool = Task {
            try await WorkerThreads.run(
                count: 2, name: "result worker", jobs: jobs, results: results, batch: 16, makeState: { _ in () },
                process: { _, job in job * 2 })
        }
        // One job alone: its result must not wait for a batch to fill.
        try await jobs.send(21)
        #expect(await results.receive() == 42)
        // The producer runs beside the consumer, as the pipeline's source runs beside its committer.
        let producer = Task {
            for index in 0..<1000 { try await jobs.send(index) }
            jobs.finish()
        }
        var outputs: [Int] = []
        while outputs.count < 1000, let next = await results.receive() { outputs.append(next) }
        #expect(outputs.sorted() == (0..<1000).map { $0 * 2 })
        try await producer.value
        try await pool.value
    }
}
