import Synchronization

/// The daemon's long-lived parts run as children of one task group and stop along one written-down shutdown path
/// (swift-service-lifecycle's `ServiceGroup` is the model, without its dependency).
///
/// ``run(main:shutdown:)`` starts every service as a child task, runs `main` (the watch loop) in the calling task,
/// and when `main` returns walks the ``Step``s in order: a step either asks something to finish (`close the
/// watcher`, `no more claims`) or waits until a named service has returned, so that each stage drains before the
/// next is told to stop. Services still running after the last step (a status writer that loops until cancelled) are
/// cancelled, and the group waits for all of them: nothing outlives ``run(main:shutdown:)``.
public struct ServiceGroup: Sendable {
    /// A long-lived part of the daemon.
    public struct Service: Sendable {
        public let name: String
        public let run: @Sendable () async -> Void

        public init(_ name: String, run: @escaping @Sendable () async -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// One step of the shutdown path.
    public enum Step: Sendable {
        /// Ask something to finish (returns at once).
        case signal(String, @Sendable () -> Void)
        /// Wait until the named service's `run` has returned.
        case waitFor(String)
    }

    public let services: [Service]

    public init(_ services: [Service]) {
        precondition(Set(services.map(\.name)).count == services.count, "service names must be unique")
        self.services = services
    }

    /// Runs the services and `main`, then the shutdown path; returns when every service has ended.
    public func run(main: () async -> Void, shutdown: [Step]) async {
        let exits = ServiceExits()
        await withTaskGroup(of: Void.self) { group in
            for service in services {
                group.addTask {
                    await service.run()
                    exits.ended(service.name)
                }
            }
            await main()
            for step in shutdown {
                switch step {
                case .signal(_, let action): action()
                case .waitFor(let name):
                    precondition(services.contains { $0.name == name }, "no service named \(name)")
                    await exits.wait(for: name)
                }
            }
            group.cancelAll()
            await group.waitForAll()
        }
    }
}

/// Which services have returned, and who waits for which.
private final class ServiceExits: Sendable {
    private struct State {
        var ended: Set<String> = []
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())

    func ended(_ name: String) {
        let waiters = state.withLock { state in
            state.ended.insert(name)
            return state.waiting.removeValue(forKey: name) ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait(for name: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.ended.contains(name) { return true }
                state.waiting[name, default: []].append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
