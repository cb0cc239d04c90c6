import Synchronization
import TestFixtures
import Testing

@testable import Ingest
import PhotodropConcurrency

@Suite("ServiceGroup", .timeLimit(.minutes(3)))
struct ServiceGroupTests {
    /// A service that runs until its gate is opened, then records that it ended.
    final class Gate: Sendable {
        private let open = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let opened = Atomic<Bool>(false)

        func wait() async {
            await withCheckedContinuation { continuation in
                let already = open.withLock { slot -> Bool in
                    if opened.load(ordering: .relaxed) { return true }
                    slot = continuation
                    return false
                }
                if already { continuation.resume() }
            }
        }

        func release() {
            opened.store(true, ordering: .relaxed)
            open.withLock { slot in
                slot?.resume()
                slot = nil
            }
        }
    }

    @Test("the shutdown path runs in order, each wait holding the next step until that service has ended")
    func orderedShutdown() async {
        let log = Locked<[String]>([])
        let first = Gate()
        let second = Gate()
        let group = ServiceGroup([
            ServiceGroup.Service("first") {
                await first.wait()
                log.withLock { $0.append("first ended") }
            },
            ServiceGroup.Service("second") {
                await second.wait()
                log.withLock { $0.append("second ended") }
            },
            ServiceGroup.Service("background") {
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                log.withLock { $0.append("background cancelled") }
            },
        ])
        await group.run(
            main: { log.withLock { $0.append("main") } },
            shutdown: [
                .signal("stop first") {
                    log.withLock { $0.append("stop first") }
                    first.release()
                },
                .waitFor("first"),
                .signal("stop second") {
                    log.withLock { $0.append("stop second") }
                    second.release()
                },
                .waitFor("second"),
            ])
        #expect(
            log.value == [
                "main", "stop first", "first ended", "stop second", "second ended", "background cancelled",
            ])
    }

    @Test("a service that ended before its step is not waited for twice")
    func alreadyEnded() async {
        let ran = Locked(0)
        let group = ServiceGroup([ServiceGroup.Service("quick") { ran.withLock { $0 += 1 } }])
        await group.run(main: { try? await Task.sleep(for: .milliseconds(20)) }, shutdown: [.waitFor("quick")])
        #expect(ran.value == 1)
    }
}
