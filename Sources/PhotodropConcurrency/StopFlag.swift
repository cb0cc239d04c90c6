import Synchronization

/// A flag that is raised once and never lowered: how a stop request reaches the watch loop and the claimer (polled
/// between batches), and how a ``WorkerThreads`` pool tells its threads to stop after the job in hand.
public final class StopFlag: Sendable {
    private let raised = Atomic(false)

    public init() {}

    /// Whether ``raise()`` was called.
    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    /// Raises the flag; true when this call raised it, false when it was already raised.
    @discardableResult
    public func raise() -> Bool { !raised.exchange(true, ordering: .acquiringAndReleasing) }
}
