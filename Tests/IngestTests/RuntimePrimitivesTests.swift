import Foundation
import PhotodropSystem
import Synchronization
import TestFixtures
import Testing

@testable import Ingest

@Suite("BoundedQueue and WorkerPool", .timeLimit(.minutes(3)))
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

@Suite("WorkerThreadPriority", .timeLimit(.minutes(3)))
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
