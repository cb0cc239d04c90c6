import Foundation
import Rendering
import Synchronization
import TestFixtures
import Testing

/// The admission rules of the decode memory budget, on threads that hold their grants as decodes would.
@Suite("Decode memory budget: lanes, large decodes in turn, one larger than the budget alone", .timeLimit(.minutes(2)))
struct DecodeBudgetTests {
    static let mib: Int64 = 1 << 20

    /// Admits `bytes` on a thread of its own; `admitted` is set once it is admitted; it holds the grant until
    /// `release` is signalled.
    final class Holder: Sendable {
        let admitted = Atomic<Bool>(false)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)

        init(_ budget: DecodeBudget, _ bytes: Int64) {
            Thread {
                let grant = budget.admit(bytes)
                self.admitted.store(true, ordering: .sequentiallyConsistent)
                self.release.wait()
                grant.release()
                self.done.signal()
            }.start()
        }

        var isAdmitted: Bool { admitted.load(ordering: .sequentiallyConsistent) }

        func finish() {
            release.signal()
            done.wait()
        }
    }

    /// Waits until `condition` holds (polling; the deadline only bounds a broken build).
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<2000 {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    /// Gives the other threads time to do what they would wrongly do (be admitted), then says whether they did not.
    func stays(_ condition: () -> Bool) -> Bool {
        for _ in 0..<40 {
            if !condition() { return false }
            usleep(5_000)
        }
        return true
    }

    @Test("the lanes' sizes follow the budget")
    func sizes() {
        let budget = DecodeBudget(totalBytes: 800 * Self.mib)
        #expect(budget.smallLaneBytes == 200 * Self.mib && budget.smallDecodeBytes == 100 * Self.mib)
        let big = DecodeBudget(totalBytes: 64 << 30)
        #expect(big.smallLaneBytes == 1 << 30, "the small lane is at most 1 GiB")
        budget.setTotal(400 * Self.mib)
        #expect(budget.totalBytes == 400 * Self.mib && budget.smallLaneBytes == 100 * Self.mib)
        #expect(MemoryLimit.available() > 0 && DecodeBudget.automaticBytes() == MemoryLimit.available() / 2)
    }

    @Test("large decodes take turns; a small one is admitted while they wait")
    func smallLaneNeverWaitsForLargeOnes() {
        // 800 MiB: a small lane of 200 (small decodes up to 100), a large lane of 600.
        let budget = DecodeBudget(totalBytes: 800 * Self.mib)
        let first = Holder(budget, 400 * Self.mib)
        #expect(eventually { first.isAdmitted })
        let second = Holder(budget, 400 * Self.mib)
        #expect(eventually { budget.waiting == 1 })
        #expect(stays { !second.isAdmitted }, "400 + 400 does not fit the large lane")
        let small = Holder(budget, 90 * Self.mib)
        #expect(eventually { small.isAdmitted }, "the small lane is its own")
        let alsoSmall = Holder(budget, 90 * Self.mib)
        #expect(eventually { alsoSmall.isAdmitted })
        let thirdSmall = Holder(budget, 90 * Self.mib)
        #expect(stays { !thirdSmall.isAdmitted }, "the small lane is full, and a large decode waits for the rest")
        first.finish()
        #expect(eventually { second.isAdmitted })
        small.finish()
        #expect(eventually { thirdSmall.isAdmitted })
        for holder in [second, alsoSmall, thirdSmall] { holder.finish() }
        #expect(budget.waiting == 0 && budget.inUseBytes == 0)
        #expect(budget.waitedTotal == 2)
    }

    @Test("a decode larger than the budget runs alone: after the others, and none beside it")
    func oversizedRunsAlone() {
        let budget = DecodeBudget(totalBytes: 400 * Self.mib)
        let small = Holder(budget, 50 * Self.mib)
        #expect(eventually { small.isAdmitted })
        let huge = Holder(budget, 2000 * Self.mib)
        #expect(stays { !huge.isAdmitted }, "waits for the small one")
        let later = Holder(budget, 10 * Self.mib)
        #expect(stays { !later.isAdmitted }, "nothing starts while a decode that must run alone waits")
        small.finish()
        #expect(eventually { huge.isAdmitted })
        #expect(stays { !later.isAdmitted }, "nothing starts beside it")
        huge.finish()
        #expect(eventually { later.isAdmitted })
        later.finish()
    }
}
