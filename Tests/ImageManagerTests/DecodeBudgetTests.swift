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

        func finish() async {
            release.signal()
            while done.wait(timeout: .now()) == .timedOut { try? await Task.sleep(for: .milliseconds(2)) }
        }
    }

    /// Waits until `condition` holds (polling, without holding a thread of the test runner; the deadline only bounds
    /// a broken build).
    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<2000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    /// Gives the other threads time to do what they would wrongly do (be admitted), then says whether they did not.
    func stays(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<40 {
            if !condition() { return false }
            try? await Task.sleep(for: .milliseconds(5))
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

    @Test("the automatic budget follows the cgroup's memory limit (v2 memory.max at any level, v1), else MemTotal")
    func cgroupLimits() throws {
        let folder = try TemporaryFolder("cgroups")
        func write(_ relative: String, _ text: String) throws { try folder.write(relative, text) }
        try write("proc/meminfo", "MemTotal:       24683784 kB\nMemFree:  1 kB\n")
        // No cgroup file at all: the machine's memory.
        #expect(MemoryLimit.available(root: folder.path) == 24_683_784 * 1024)
        // cgroup v2, as under systemd: a limit on the service's own group, and a larger one above it.
        try write("proc/self/cgroup", "0::/system.slice/photodrop-watch.service\n")
        try write("sys/fs/cgroup/system.slice/photodrop-watch.service/memory.max", "2147483648\n")
        try write("sys/fs/cgroup/system.slice/memory.max", "4294967296\n")
        try write("sys/fs/cgroup/memory.max", "max\n")
        #expect(MemoryLimit.available(root: folder.path) == 2 << 30)
        // The parent's limit is the smaller one: it holds.
        try write("sys/fs/cgroup/system.slice/memory.max", "1073741824\n")
        #expect(MemoryLimit.available(root: folder.path) == 1 << 30)
        // cgroup v1's memory controller; its "unlimited" is a huge number.
        try write("proc/self/cgroup", "4:memory:/docker/abc\n1:cpu:/\n0::/\n")
        try write("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "536870912\n")
        try write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
        #expect(MemoryLimit.available(root: folder.path) == 512 << 20)
        try write("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n")
        #expect(MemoryLimit.available(root: folder.path) == 24_683_784 * 1024)
    }

    @Test("large decodes take turns; a small one is admitted while they wait")
    func smallLaneNeverWaitsForLargeOnes() async {
        // 800 MiB: a small lane of 200 (small decodes up to 100), a large lane of 600.
        let budget = DecodeBudget(totalBytes: 800 * Self.mib)
        let first = Holder(budget, 400 * Self.mib)
        #expect(await eventually { first.isAdmitted })
        let second = Holder(budget, 400 * Self.mib)
        #expect(await eventually { budget.waiting == 1 })
        #expect(await stays { !second.isAdmitted }, "400 + 400 does not fit the large lane")
        let small = Holder(budget, 90 * Self.mib)
        #expect(await eventually { small.isAdmitted }, "the small lane is its own")
        let alsoSmall = Holder(budget, 90 * Self.mib)
        #expect(await eventually { alsoSmall.isAdmitted })
        let thirdSmall = Holder(budget, 90 * Self.mib)
        #expect(await stays { !thirdSmall.isAdmitted }, "the small lane is full, and a large decode waits for the rest")
        await first.finish()
        #expect(await eventually { second.isAdmitted })
        await small.finish()
        #expect(await eventually { thirdSmall.isAdmitted })
        for holder in [second, alsoSmall, thirdSmall] { await holder.finish() }
        #expect(budget.waiting == 0 && budget.inUseBytes == 0)
        #expect(budget.waitedTotal == 2)
    }

    @Test("a decode larger than the budget runs alone: after the others, and none beside it")
    func oversizedRunsAlone() async {
        let budget = DecodeBudget(totalBytes: 400 * Self.mib)
        let small = Holder(budget, 50 * Self.mib)
        #expect(await eventually { small.isAdmitted })
        let huge = Holder(budget, 2000 * Self.mib)
        #expect(await stays { !huge.isAdmitted }, "waits for the small one")
        let later = Holder(budget, 10 * Self.mib)
        #expect(await stays { !later.isAdmitted }, "nothing starts while a decode that must run alone waits")
        await small.finish()
        #expect(await eventually { huge.isAdmitted })
        #expect(await stays { !later.isAdmitted }, "nothing starts beside it")
        await huge.finish()
        #expect(await eventually { later.isAdmitted })
        await later.finish()
    }
}
