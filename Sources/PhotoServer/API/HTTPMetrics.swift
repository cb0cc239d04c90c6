import FoundationEssentials

import Synchronization
import PhotodropTelemetry

/// `serve`'s own Prometheus metrics: requests by kind of resource, method and status code, and how long making each
/// answer took (not sending it), per kind.
///
/// Counted with atomic additions only: a picture is answered by one of 32 connection threads on two cores, and one
/// lock around a dictionary (the first version) cost a third of the pictures per second, the threads spinning on it.
final class HTTPMetrics: Sendable {
    /// What a request asked for, by its path (a handful of values: labels must not grow with IDs).
    enum Kind: Int, CaseIterable, Sendable {
        case page, api, picture, original, video, events, upload, metrics, other

        var name: String { String(describing: self) }

        init(path: Substring) {
            // On the bytes: Character-level prefix and suffix tests cost a fiftieth of a picture's answer.
            let bytes = path.utf8
            func ends(_ suffix: String) -> Bool { bytes.reversed().starts(with: suffix.utf8.reversed()) }
            func begins(_ prefix: String) -> Bool { bytes.starts(with: prefix.utf8) }
            guard begins("/api/") else {
                switch path {
                case "/", "/index.html", "/gallery.js", "/gallery.css": self = .page
                case "/metrics": self = .metrics
                default: self = .other
                }
                return
            }
            if ends("/thumbnail") || ends("/preview") {
                self = .picture
            } else if ends("/original") {
                self = .original
            } else if ends("/video") {
                self = .video
            } else if begins("/api/events") {
                self = .events
            } else if begins("/api/upload/") {
                self = .upload
            } else {
                self = .api
            }
        }
    }

    /// One atomic count (a class, so that many fit in an array).
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func add(_ amount: Int) { value.wrappingAdd(amount, ordering: .relaxed) }
        var current: Int { value.load(ordering: .relaxed) }
    }

    static let methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "other"]
    static let codes = [
        200, 201, 204, 206, 301, 302, 303, 304, 307, 400, 401, 403, 404, 405, 409, 410, 411, 413, 414, 415, 416, 422,
        429, 431, 500, 501, 503, 507,
    ]
    private static let bounds = LatencyHistogram.defaultBounds

    /// kind × method × code (the last code slot: any other).
    private let requests: [Counter]
    /// Per kind: a counter per bound and one past the last, then the sum in nanoseconds, then the count.
    private let durations: [Counter]
    private let started = Date()

    init() {
        requests = (0..<(Kind.allCases.count * Self.methods.count * (Self.codes.count + 1))).map { _ in Counter() }
        durations = (0..<(Kind.allCases.count * (Self.bounds.count + 3))).map { _ in Counter() }
    }

    /// Counts one answer.
    func record(_ kind: Kind, method: String, status: Int, duration: Duration) {
        let methodIndex = Self.methods.firstIndex(of: method) ?? Self.methods.count - 1
        let codeIndex = Self.codes.firstIndex(of: status) ?? Self.codes.count
        requests[(kind.rawValue * Self.methods.count + methodIndex) * (Self.codes.count + 1) + codeIndex].add(1)
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        let base = kind.rawValue * (Self.bounds.count + 3)
        let bucket = Self.bounds.firstIndex { Double(nanoseconds) <= $0 * 1e9 } ?? Self.bounds.count
        durations[base + bucket].add(1)
        durations[base + Self.bounds.count + 1].add(nanoseconds)
        durations[base + Self.bounds.count + 2].add(1)
    }

    /// The Prometheus text of serve's metrics.
    var text: String {
        var out = PrometheusText()
        out.family("photodrop_http_requests_total", type: "counter", help: "HTTP requests answered by photodrop serve.")
        for kind in Kind.allCases {
            for (methodIndex, method) in Self.methods.enumerated() {
                for codeIndex in 0...Self.codes.count {
                    let count =
                        requests[(kind.rawValue * Self.methods.count + methodIndex) * (Self.codes.count + 1) + codeIndex]
                        .current
                    guard count > 0 else { continue }
                    let code = codeIndex < Self.codes.count ? String(Self.codes[codeIndex]) : "other"
                    out.sample(
                        "photodrop_http_requests_total", ["kind": kind.name, "method": method, "code": code],
                        Double(count))
                }
            }
        }
        out.family(
            "photodrop_http_request_duration_seconds", type: "histogram",
            help: "Time photodrop serve took to make an answer (not to send it), by kind of resource.")
        for kind in Kind.allCases {
            let base = kind.rawValue * (Self.bounds.count + 3)
            let count = durations[base + Self.bounds.count + 2].current
            guard count > 0 else { continue }
            let histogram = LatencyHistogram(
                bounds: Self.bounds, counts: (0..<Self.bounds.count).map { durations[base + $0].current },
                overflow: durations[base + Self.bounds.count].current,
                sum: Double(durations[base + Self.bounds.count + 1].current) / 1e9, count: count)
            out.histogramSeries("photodrop_http_request_duration_seconds", label: ("kind", kind.name), histogram)
        }
        out.single(
            "photodrop_serve_start_time_seconds", type: "gauge", help: "When photodrop serve started (Unix time).",
            started.timeIntervalSince1970.rounded())
        return out.text
    }
}
