import FoundationEssentials
import PhotodropSystem
import Synchronization

/// serve's log, which no client can flood: lines of one kind (the line with its numbers and addresses taken out, or a
/// kind the caller names) are written up to ``burst`` per ``window``; the rest are counted, and when the window ends
/// one line says how many there were ("… 52,000 more like this in the last 10 s: …"). Without it, 50,000 refused
/// requests a second wrote megabytes of log a second, with no token needed.
final class RateLimitedLog: Sendable {
    private struct Kind {
        var windowStart: ContinuousClock.Instant
        var written = 0
        var suppressed = 0
        var sample = ""
    }

    private let write: @Sendable (String) -> Void
    private let kinds = Mutex<[String: Kind]>([:])
    private let stopped = Atomic<Bool>(false)
    let burst: Int
    let window: Duration
    /// Kinds remembered at most (a flood of ever new kinds is one kind past it).
    static let maximumKinds = 1000

    public init(burst: Int = 10, window: Duration = .seconds(10), write: @escaping @Sendable (String) -> Void) {
        self.burst = burst
        self.window = window
        self.write = write
        SystemThread.start(name: "photodrop.serve.log") { [weak self] in
            while let log = self, !log.stopped.load(ordering: .relaxed) {
                SystemThread.sleep(seconds: 0.25)
                log.flush(now: .now)
            }
        }
    }

    public func stop() {
        stopped.store(true, ordering: .relaxed)
        flush(now: .now + window)
    }

    /// Writes `line`, unless `kind` (default: the line without its numbers) has had ``burst`` lines in this window.
    public func callAsFunction(_ line: String, kind: String? = nil) {
        let now = ContinuousClock.now
        var key = kind ?? Self.kind(of: line)
        var summary: String?
        let allowed = kinds.withLock { kinds -> Bool in
            if kinds[key] == nil && kinds.count >= Self.maximumKinds { key = "(other)" }
            var entry = kinds[key] ?? Kind(windowStart: now)
            if now - entry.windowStart >= window {
                summary = Self.summary(entry, window: window)
                entry = Kind(windowStart: now)
            }
            defer { kinds[key] = entry }
            guard entry.written < burst else {
                entry.suppressed += 1
                entry.sample = line
                return false
            }
            entry.written += 1
            return true
        }
        if let summary { write(summary) }
        if allowed { write(line) }
    }

    /// Writes the summaries of windows that are over.
    func flush(now: ContinuousClock.Instant) {
        let summaries = kinds.withLock { kinds -> [String] in
            var lines: [String] = []
            for (key, entry) in kinds where now - entry.windowStart >= window {
                if let line = Self.summary(entry, window: window) { lines.append(line) }
                kinds[key] = nil
            }
            return lines
        }
        for line in summaries { write(line) }
    }

    private static func summary(_ entry: Kind, window: Duration) -> String? {
        guard entry.suppressed > 0 else { return nil }
        let seconds = window.components.seconds
        return "… \(grouped(entry.suppressed)) more like this in the last \(seconds) s: \(entry.sample)"
    }

    /// 52000 as "52,000".
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    /// A line's kind: its text with every run of digits (counts, addresses, ports) and hex (IDs) as `#`, cut short.
    static func kind(of line: String) -> String {
        var kind = ""
        var inNumber = false
        for scalar in line.unicodeScalars.prefix(120) {
            let isNumber = ("0"..."9").contains(scalar) || (inNumber && (("a"..."f").contains(scalar) || scalar == "."))
            if isNumber {
                if !inNumber { kind.append("#") }
                inNumber = true
            } else {
                inNumber = false
                kind.unicodeScalars.append(scalar)
            }
        }
        return kind
    }
}
