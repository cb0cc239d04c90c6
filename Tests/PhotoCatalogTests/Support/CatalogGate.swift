import Foundation
import Synchronization
import Testing

/// One catalog test case at a time, across every suite of this target, each with a time limit of its own turn.
///
/// The catalog's calls are synchronous: a fetch blocks the thread it runs on, and an async test runs on one of Swift's
/// cooperative threads (two on this machine). On PostgreSQL a fetch waits for the server too, so catalog tests run side
/// by side would hold both threads, and the end-to-end and watcher tests running meanwhile, whose waits need those
/// threads, would see seconds pass for nothing. Every suite here carries ``one``: at most one catalog test case holds a
/// thread at a time; the rest of the run goes on beside it.
///
/// Swift Testing's `.timeLimit` counts from the moment a test case is scheduled, which here includes the wait for its
/// turn: with the PostgreSQL half in the queue, the last cases waited longer than any sensible limit while doing
/// nothing. So the limit lives here and counts from the moment the turn begins. A case that outlives it is recorded
/// as failed and gives up its turn, so that one hung case cannot hold the rest of the run behind it.
struct CatalogGate: SuiteTrait, TestTrait, TestScoping {
    /// How long one test case may run once its turn began.
    var limit: Duration

    static var one: CatalogGate { CatalogGate(limit: .seconds(180)) }
    static func one(limit: Duration) -> CatalogGate { CatalogGate(limit: limit) }

    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil, !test.isSuite else {
            try await function()
            return
        }
        await CatalogTurnstile.shared.enter()
        let turn = Turn()
        defer { turn.end() }
        try await withoutActuallyEscaping(function) { function in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await function()
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return false
                }
                defer { group.cancelAll() }
                // The first to finish decides; a case that outlived its limit gives up its turn at once and is
                // then waited for (the group cannot end before it), without holding the others back.
                if try await group.next() == false {
                    Issue.record("Time limit exceeded: the test case ran longer than \(limit) after its turn began")
                    turn.end()
                }
            }
        }
    }

    /// The turn of one test case, given back exactly once.
    private final class Turn: Sendable {
        private let ended = Mutex(false)

        func end() {
            let first = ended.withLock { ended in
                defer { ended = true }
                return !ended
            }
            guard first else { return }
            Task { await CatalogTurnstile.shared.leave() }
        }
    }
}

/// A first-come, first-served lock for ``CatalogGate`` that waits without holding a thread.
actor CatalogTurnstile {
    static let shared = CatalogTurnstile()
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if !held {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            held = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
