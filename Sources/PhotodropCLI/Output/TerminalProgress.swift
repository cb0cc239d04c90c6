import FoundationEssentials
import Ingest
import PhotodropSystem
import Synchronization
import PhotodropConfiguration

/// Draws ``ProgressRenderer`` lines in place on a terminal, at most every `minimumInterval`.
///
/// ``init(fileDescriptor:minimumInterval:environment:)`` returns nil when the descriptor (stderr by default) is not
/// a terminal or `TERM` is `dumb`: a pipe, a file, cron and CI get no progress output at all.
public final class TerminalProgress: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var drawn = false
    }

    private let fd: FileDescriptor
    private let minimumInterval: Duration
    private let state = Mutex(State())

    /// A progress line on `fileDescriptor`, or nil when that is not an interactive terminal.
    public init?(
        fileDescriptor: Int32 = 2, minimumInterval: Duration = .milliseconds(100),
        environment: [String: String]? = nil
    ) {
        let descriptor = FileDescriptor(borrowing: fileDescriptor)
        guard descriptor.isTerminal else { return nil }
        let term = environment?["TERM"] ?? ProcessInfo.processInfo.environment["TERM"]
        if term == "dumb" { return nil }
        self.fd = descriptor
        self.minimumInterval = minimumInterval
    }

    /// Redraws the line unless the last redraw was less than `minimumInterval` ago (`force` draws anyway).
    public func update(_ snapshot: ProgressSnapshot, force: Bool = false) {
        update(force: force) { ProgressRenderer.render(snapshot, width: $0) }
    }

    /// Redraws the line with `line(width)` (see ``update(_:force:)``).
    public func update(force: Bool = false, line: (Int) -> String) {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            if !force, let last = state.lastDraw, now - last < minimumInterval { return false }
            state.lastDraw = now
            state.drawn = true
            return true
        }
        guard due else { return }
        // Carriage return, the line, then "erase to end of line" for a line shorter than the previous one.
        write("\r" + line(columns() - 1) + "\u{1B}[K")
    }

    /// Erases the progress line, so that a summary printed next starts on a clean line.
    public func finish() {
        let drawn = state.withLock { state -> Bool in
            defer { state.drawn = false }
            return state.drawn
        }
        if drawn { write("\r\u{1B}[K") }
    }

    private func columns() -> Int {
        if let columns = fd.terminalColumns { return columns }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(text), value > 0 { return value }
        return 80
    }

    private func write(_ text: String) {
        try? FileSystem.writeAll(text, to: fd, path: nil)  // a terminal that went away needs no progress line
    }
}
