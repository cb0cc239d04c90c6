import Foundation
import Testing

/// How many end-to-end tests run at once, and which run alone.
///
/// The end-to-end tests start real daemons and wait for them without holding Swift's cooperative threads, so Swift
/// Testing would run all of them at once: dozens of daemons on two cores, and the tests that measure a latency
/// (events within a second, a small file stored while large ones are hashed) would measure the crowd. Every
/// end-to-end suite carries ``endToEnd`` (at most ``sharedLimit`` tests at a time); suites that measure time carry
/// ``alone`` (no other end-to-end test meanwhile).
struct ProcessBudget: SuiteTrait, TestTrait, TestScoping {
    /// Whether the test runs with no other end-to-end test.
    let exclusive: Bool

    /// At most this many end-to-end tests at a time.
    static let sharedLimit = 3

    /// An end-to-end test: runs beside at most ``sharedLimit`` − 1 others.
    static var endToEnd: ProcessBudget { ProcessBudget(exclusive: false) }
    /// A test that measures time: runs alone among the end-to-end tests.
    static var alone: ProcessBudget { ProcessBudget(exclusive: true) }

    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite's own scope, and nested suites' traits applied again to a test: only the test case's scope counts.
        guard testCase != nil, !test.isSuite else {
            try await function()
            return
        }
        let claimsExclusive = exclusive || test.traits.contains { ($0 as? ProcessBudget)?.exclusive == true }
        if !exclusive && claimsExclusive {
            // The suite's shared trait meets the test's exclusive one: the exclusive scope does the gating.
            try await function()
            return
        }
        await ProcessGate.shared.enter(exclusive: exclusive)
        do {
            try await function()
        } catch {
            await ProcessGate.shared.leave(exclusive: exclusive)
            throw error
        }
        await ProcessGate.shared.leave(exclusive: exclusive)
    }
}

/// A readers-writer gate for ``ProcessBudget``: shared entries up to a limit, exclusive entries alone; waiters are
/// admitted in arrival order so that an exclusive test is not starved.
actor ProcessGate {
    static let shared = ProcessGate()

    private var sharedCount = 0
    private var exclusiveHeld = false
    private var waiting: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    func enter(exclusive: Bool) async {
        if waiting.isEmpty && canEnter(exclusive: exclusive) {
            admit(exclusive: exclusive)
            return
        }
        await withCheckedContinuation { waiting.append((exclusive, $0)) }
    }

    func leave(exclusive: Bool) {
        if exclusive { exclusiveHeld = false } else { sharedCount -= 1 }
        while let next = waiting.first, canEnter(exclusive: next.exclusive) {
            waiting.removeFirst()
            admit(exclusive: next.exclusive)
            next.continuation.resume()
        }
    }

    private func canEnter(exclusive: Bool) -> Bool {
        if exclusiveHeld { return false }
        return exclusive ? sharedCount == 0 : sharedCount < ProcessBudget.sharedLimit
    }

    private func admit(exclusive: Bool) {
        if exclusive { exclusiveHeld = true } else { sharedCount += 1 }
    }
}
