/// Where a ``Logger`` sends its events, as in swift-log: it filters by level, holds the logger's own metadata and
/// writes the events somewhere.
public protocol LogHandler: Sendable {
    /// Writes one event; `metadata` is the event's own (the handler adds its ``metadata``).
    func log(level: Logger.Level, message: String, metadata: Logger.Metadata, source: String)
    /// Events below this level are dropped.
    var logLevel: Logger.Level { get set }
    /// Metadata written with every event.
    subscript(metadataKey key: String) -> Logger.MetadataValue? { get set }
}
