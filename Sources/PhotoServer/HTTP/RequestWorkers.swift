import FoundationEssentials
import PhotodropSystem

/// A fixed set of threads that make the answers which take time (reading the catalog, a change through the writer, a
/// picture made on demand, an upload's last steps), while their connections wait suspended: the server's own threads
/// only move bytes, and a waiting connection costs no thread. Jobs run in the order they came.
final class RequestWorkers: @unchecked Sendable {
    // @unchecked: `jobs`, `running` and `stopping` are guarded by `condition`.
    private let condition = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var running = 0
    private var stopping = false

    init(count: Int) {
        for index in 0..<max(1, count) {
            SystemThread.start(name: "photodrop.serve.worker.\(index)") { [self] in work() }
        }
    }

    /// Jobs waiting for a worker.
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs what is queued, then ends the threads; returns when every job has run.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while head < jobs.count || running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count && !stopping { condition.wait() }
            if head == jobs.count {
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head > 256 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            running += 1
            condition.unlock()
            job()
            condition.lock()
            running -= 1
            if stopping { condition.broadcast() }
            condition.unlock()
        }
    }
}
