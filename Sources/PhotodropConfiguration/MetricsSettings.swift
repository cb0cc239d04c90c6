/// Where `photodrop watch` writes its Prometheus metrics (config `metrics`).
public struct MetricsSettings: Sendable, Equatable {
    /// The file node_exporter's textfile collector reads (`metrics.textfile`, a `.prom` file), replaced atomically
    /// every ``intervalSeconds``; nil: no file. Resolved against the config file's folder.
    public var textfile: String?
    /// How often the file is written (`metrics.intervalSeconds`). Default 15.
    public var intervalSeconds: Int

    /// Allowed values of ``intervalSeconds``.
    public static let intervalRange = 1...3_600

    public init(textfile: String? = nil, intervalSeconds: Int = 15) {
        self.textfile = textfile
        self.intervalSeconds = intervalSeconds
    }
}
