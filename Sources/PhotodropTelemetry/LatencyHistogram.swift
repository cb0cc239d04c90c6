/// A Prometheus histogram of durations in seconds: cumulative counts per upper bound, their sum and count.
public struct LatencyHistogram: Sendable, Equatable {
    /// Upper bounds in seconds (`le`), ascending; `+Inf` is implied.
    public let bounds: [Double]
    /// Observations at or below each bound (not cumulative; ``cumulative`` adds them up).
    private var counts: [Int]
    /// Observations above the last bound.
    private var overflow = 0
    /// The sum of all observations, in seconds.
    public private(set) var sum: Double = 0
    /// How many observations.
    public private(set) var count = 0

    /// 1 ms to 5 min: a commit or a file's way through the pipeline.
    public static let defaultBounds = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

    public init(bounds: [Double] = LatencyHistogram.defaultBounds) {
        self.bounds = bounds
        self.counts = Array(repeating: 0, count: bounds.count)
    }

    /// A histogram with these counts already made: per bound (not cumulative), above the last, their sum and
    /// number (a snapshot of counters kept elsewhere).
    public init(bounds: [Double], counts: [Int], overflow: Int, sum: Double, count: Int) {
        precondition(counts.count == bounds.count, "one count per bound")
        self.bounds = bounds
        self.counts = counts
        self.overflow = overflow
        self.sum = sum
        self.count = count
    }

    /// Counts one duration.
    public mutating func observe(_ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        if let index = bounds.firstIndex(where: { seconds <= $0 }) {
            counts[index] += 1
        } else {
            overflow += 1
        }
        sum += seconds
        count += 1
    }

    /// Each bound with the observations at or below it (Prometheus' `_bucket{le=…}`), `+Inf` last.
    public var cumulative: [(bound: Double, count: Int)] {
        var running = 0
        var result: [(Double, Int)] = []
        for (bound, count) in zip(bounds, counts) {
            running += count
            result.append((bound, running))
        }
        result.append((.infinity, running + overflow))
        return result
    }
}
