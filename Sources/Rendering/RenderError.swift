/// Why the helper gave no pictures of a file.
public enum RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The decoder refused or failed on this file (its message): damaged, unsupported, too many pixels.
    case undecodable(String)
    /// The helper process died while working on this file (a decoder crashed on it): restarted for the next file.
    case crashed(signal: Int32?, status: Int32?)
    /// The helper took longer than the time limit on this file and was killed.
    case timedOut(seconds: Double)
    /// The helper could not be started or spoke nonsense: nothing can be rendered until that is fixed.
    case unavailable(String)

    public var description: String {
        switch self {
        case .undecodable(let message):
            return message
        case .crashed(let signal, let status):
            let how = signal.map { "signal \($0)" } ?? status.map { "exit status \($0)" } ?? "closing its channel"
            return "the decoder crashed on this file (the render helper ended with \(how)); it was restarted, and "
                + "the file is kept as it is, without pictures"
        case .timedOut(let seconds):
            return "the decoder took longer than \(Int(seconds)) s on this file and was stopped; the file is kept as "
                + "it is, without pictures"
        case .unavailable(let message):
            return message
        }
    }

    /// Whether the failure belongs to the file (record it) rather than to the helper (try again later).
    public var isFileFailure: Bool {
        switch self {
        case .undecodable, .crashed, .timedOut: true
        case .unavailable: false
        }
    }
}
