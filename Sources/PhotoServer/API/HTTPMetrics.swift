import Foundation
import Ingest
import Synchronization

/// `serve`'s own Prometheus metrics: requests by kind of resource and status code, and how long making each answer
/// took (not sending it), per kind. One lock per request.
final class HTTPMetrics: Sendable {
    /// What a request asked for, by its path (a handful of values: labels must not grow with IDs).
    enum Kind: String, CaseIterable, Sendable {
        case page, api, picture, original, video, events, upload, metrics, other

        init(path: Substring) {
            if !path.hasPrefix("/api/") {
                switch path {
                case "/", "/index.html", "/gallery.js", "/gallery.css": self = .page
                case "/metrics": self = .metrics
                default: self = .other
                }
                return
            }
            if path.hasSuffix("/thumbnail") || path.hasSuffix("/preview") {
                self = .picture
            } else if path.hasSuffix("/original") {
                self = .original
            } else if path.hasSuffix("/video") {
                self = .video
            } else if path.hasPrefix("/api/events") {
                self = .events
            } else if path.hasPrefix("/api/upload/") {
                self = .upload
            } else {
                self = .api
            }
        }
    }

    private struct Key: Hashable {
        var kind: Kind
        var method: String
        var status: Int
    }

    private struct State {
        var requests: [Key: Int] = [:]
        var durations: [Kind: LatencyHistogram] = [:]
    }

    private let state = Mutex(State())
    private let started = Date()

    /// Counts one answer.
    func record(_ kind: Kind, method: String, status: Int, duration: Duration) {
        let key = Key(kind: kind, method: method, status: status)
        state.withLock { state in
            state.requests[key, default: 0] += 1
            state.durations[kind, default: LatencyHistogram()].observe(duration)
        }
    }

    /// The Prometheus text of serve's metrics.
    var text: String {
        let snapshot = state.withLock { $0 }
        var out = PrometheusText()
        out.family("photodrop_http_requests_total", type: "counter", help: "HTTP requests answered by photodrop serve.")
        let sorted = snapshot.requests.sorted {
            ($0.key.kind.rawValue, $0.key.method, $0.key.status) < ($1.key.kind.rawValue, $1.key.method, $1.key.status)
        }
        for (key, count) in sorted {
            out.sample(
                "photodrop_http_requests_total",
                ["kind": key.kind.rawValue, "method": key.method, "code": String(key.status)], Double(count))
        }
        out.family(
            "photodrop_http_request_duration_seconds", type: "histogram",
            help: "Time photodrop serve took to make an answer (not to send it), by kind of resource.")
        for kind in Kind.allCases {
            guard let histogram = snapshot.durations[kind] else { continue }
            for (bound, count) in histogram.cumulative {
                out.sample(
                    "photodrop_http_request_duration_seconds_bucket",
                    ["kind": kind.rawValue, "le": PrometheusText.number(bound)], Double(count))
            }
            out.sample("photodrop_http_request_duration_seconds_sum", ["kind": kind.rawValue], histogram.sum)
            out.sample("photodrop_http_request_duration_seconds_count", ["kind": kind.rawValue], Double(histogram.count))
        }
        out.single(
            "photodrop_serve_start_time_seconds", type: "gauge", help: "When photodrop serve started (Unix time).",
            started.timeIntervalSince1970.rounded())
        return out.text
    }
}
