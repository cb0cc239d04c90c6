import Testing

/// One catalog test case at a time, across every suite of this target.
///
/// The catalog's calls are synchronous: a fetch blocks the thread it runs on, and an async test runs on one of Swift's
/// cooperative threads (two on this machine). On PostgreSQL a fetch waits for the server too, so catalog tests run side
/// by side would hold both threads, and the end-to-end and watcher tests running meanwhile, whose waits need those
/// threads, would see seconds pass for nothing. Every suite here carries ``one``: at most one catalog test case holds a
/// thread at a time; the rest of the run goes on beside it.
struct CatalogGate: SuiteTrait, TestTrait, TestScoping {
    static var one: CatalogGate { CatalogGate() }

    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil, !test.isSuite else {
            try await function()
            return
        }
        await CatalogTurnstile.shared.enter()
        do {
            try await function()
        } catch {
            await CatalogTurnstile.shared.leave()
            throw error
        }
        await CatalogTurnstile.shared.leave()
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
