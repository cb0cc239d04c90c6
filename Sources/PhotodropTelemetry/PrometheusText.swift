/// Prometheus' text exposition format (version 0.0.4), written metric family by family: `# HELP`, `# TYPE`, then
/// the samples, with label values escaped (`\\`, `"`, newline) and numbers as Prometheus writes them (`+Inf`, `NaN`).
public struct PrometheusText: Sendable {
    /// The text so far.
    public private(set) var text = ""

    public init() {}

    /// Starts a metric family.
    public mutating func family(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(type)\n"
    }

    /// One sample without labels.
    public mutating func sample(_ name: String, _ value: Double) {
        sample(name, [:], value)
    }

    /// One sample.
    public mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        sample(name, labelList: labels.map { ($0.key, $0.value) }, value)
    }

    private mutating func sample(_ name: String, labelList labels: [(String, String)], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{"
            text += labels.map { "\($0.0)=\"\(Self.escapedLabel($0.1))\"" }.joined(separator: ",")
            text += "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    /// A counter or gauge family with one unlabelled sample.
    public mutating func single(_ name: String, type: String, help: String, _ value: Double) {
        family(name, type: type, help: help)
        sample(name, value)
    }

    /// A histogram family of one series: `_bucket{le=…}` (cumulative, `+Inf` last), `_sum`, `_count`.
    public mutating func histogram(_ name: String, help: String, _ histogram: LatencyHistogram) {
        family(name, type: "histogram", help: help)
        histogramSeries(name, histogram)
    }

    /// One series of a histogram family already started with ``family(_:type:help:)``: its buckets, sum and count,
    /// each with `label` (when given) before `le`.
    public mutating func histogramSeries(_ name: String, label: (String, String)? = nil, _ histogram: LatencyHistogram) {
        let labels = label.map { [$0] } ?? []
        for (bound, count) in histogram.cumulative {
            sample(name + "_bucket", labelList: labels + [("le", Self.number(bound))], Double(count))
        }
        sample(name + "_sum", labelList: labels, histogram.sum)
        sample(name + "_count", labelList: labels, Double(histogram.count))
    }

    /// Appends text already in the format (another process's metrics).
    public mutating func append(raw: String) {
        text += raw
        if !raw.isEmpty && !raw.hasSuffix("\n") { text += "\n" }
    }

    /// `+Inf`, `-Inf`, `NaN`, integers without a fraction, other numbers as Swift prints a Double.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func escapedLabel(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    static func escapedHelp(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }
}
