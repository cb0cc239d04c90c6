import PhotodropSystem
@preconcurrency import Dispatch

/// Unix signals as an `AsyncSequence`, made from `DispatchSource` signal sources (the pattern of
/// swift-service-lifecycle's `UnixSignalsSequence`).
///
/// Creating the sequence sets the signals' disposition to `SIG_IGN` (so the default action, usually "terminate",
/// no longer happens) and installs one signal source per signal; each delivery becomes one element. The
/// dispositions stay ignored after the sequence ends: a daemon that once handled SIGTERM keeps doing so while it
/// shuts down. Iterate it from one task:
///
/// ```swift
/// for await signal in UnixSignalSequence(trapping: .interrupt, .terminate) {
///     logger.info("stopping", metadata: ["signal": "\(signal)"]); break
/// }
/// ```
public struct UnixSignalSequence: AsyncSequence, Sendable {
    public typealias Element = UnixSignal
    public typealias Failure = Never

    private let stream: AsyncStream<UnixSignal>

    /// Starts trapping `signals`.
    public init(trapping signals: UnixSignal...) {
        self.init(trapping: signals)
    }

    /// Starts trapping `signals`.
    public init(trapping signals: [UnixSignal]) {
        let queue = DispatchQueue(label: "photodrop.signals")
        let (stream, continuation) = AsyncStream<UnixSignal>.makeStream(bufferingPolicy: .bufferingOldest(64))
        var sources: [any DispatchSourceSignal] = []
        for signal in Set(signals) {
            Signal(rawValue: signal.number).ignore()
            let source = DispatchSource.makeSignalSource(signal: signal.number, queue: queue)
            source.setEventHandler {
                for _ in 0..<Swift.max(1, Int(source.data)) { continuation.yield(signal) }
            }
            source.resume()
            sources.append(source)
        }
        let installed = SignalSources(sources)
        continuation.onTermination = { _ in installed.cancel() }
        self.stream = stream
    }

    public func makeAsyncIterator() -> AsyncStream<UnixSignal>.Iterator {
        stream.makeAsyncIterator()
    }
}

/// The installed sources, cancelled when the sequence's stream terminates.
private final class SignalSources: Sendable {
    /// `DispatchSourceSignal` is not marked `Sendable`; `cancel()` is thread-safe and the array is never mutated.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    init(_ sources: [any DispatchSourceSignal]) {
        self.sources = sources
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
