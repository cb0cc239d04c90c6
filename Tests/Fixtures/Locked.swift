import Synchronization

/// A `Mutex` in a class, so that `@Sendable` closures (change blocks, observers, handlers) can share a value.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    public func withLock<R>(_ body: (inout Value) -> R) -> R {
        mutex.withLock { body(&$0) }
    }

    public var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}
