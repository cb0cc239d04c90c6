@preconcurrency import Dispatch
import Synchronization

/// Wakes one waiting task when a file descriptor becomes readable, when a deadline passes, or when cancelled.
///
/// A `DispatchSource` read source is the trigger (as in swift-service-lifecycle's signal sequence). The source is
/// level-triggered, so its handler suspends it and the reader re-arms it with ``drained()`` after `read(2)`
/// returned `EAGAIN`: no busy loop while the consumer is busy, and unread events stay in the kernel's queue (whose
/// overflow is reported as `IN_Q_OVERFLOW`), which is the natural back-pressure for a watcher.
public final class ReadinessSignal: Sendable {
    private struct State {
        var readable = true
        var suspended = false
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
        var waitToken: UInt64 = 0
    }

    private let state = Mutex(State())
    private let queue: DispatchQueue
    /// `DispatchSourceRead` is not marked `Sendable`, but `suspend`, `resume` and `cancel` are thread-safe; every
    /// call to them here is made under `state`'s lock, which also keeps the suspend count balanced.
    nonisolated(unsafe) private let source: any DispatchSourceRead

    /// Watches `fileDescriptor`; `onCancel` runs once the source is cancelled, and is where the descriptor may be
    /// closed (not before: Dispatch may still be polling it).
    public init(fileDescriptor: Int32, label: String, onCancel: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: label)
        self.queue = queue
        self.source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
        source.setEventHandler { [weak self] in self?.fired() }
        source.setCancelHandler(handler: onCancel)
        source.activate()
    }

    deinit {
        cancel()
    }

    private func fired() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.readable = true
            if !state.suspended && !state.cancelled {
                source.suspend()
                state.suspended = true
            }
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// The reader got `EAGAIN`: wait for the next readiness.
    public func drained() {
        state.withLock { state in
            state.readable = false
            if state.suspended && !state.cancelled {
                source.resume()
                state.suspended = false
            }
        }
    }

    /// Suspends until the descriptor may be readable, `deadline` passes, the task is cancelled, or ``cancel()``.
    public func wait(until deadline: ContinuousClock.Instant?) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let token: UInt64? = state.withLock { state in
                    if state.readable || state.cancelled || Task.isCancelled { return nil }
                    state.waitToken &+= 1
                    state.waiter = continuation
                    return state.waitToken
                }
                guard let token else {
                    continuation.resume()
                    return
                }
                if let deadline {
                    let delay = ContinuousClock.now.duration(to: deadline)
                    let (seconds, attoseconds) = delay.components
                    let nanoseconds = max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
                    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(nanoseconds, Int64(Int32.max) * 100)))) {
                        [weak self] in self?.timedOut(token)
                    }
                }
            }
        } onCancel: {
            wakeWaiter()
        }
    }

    private func timedOut(_ token: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.waitToken == token else { return nil }
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    private func wakeWaiter() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Stops watching for good and wakes the waiter; the cancel handler runs afterwards on the source's queue.
    public func cancel() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            if state.suspended {
                // A suspended source never delivers its cancel handler, and releasing it is a Dispatch error.
                source.resume()
                state.suspended = false
            }
            source.cancel()
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }
}
