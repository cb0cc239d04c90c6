import FoundationEssentials

/// The time rules of pairing, shared by the desk (files waiting together) and the stored-partner lookup (a late file
/// against a stored asset), so that a pair is the same pair whichever half came first and however late.
enum PairingRules {
    /// How far apart two halves' capture times may be.
    static let maximumSecondsApart: TimeInterval = 2

    /// Whether two capture times are within ``maximumSecondsApart``; a missing one passes unless `requireBoth`.
    static func closeInTime(_ a: Date?, _ b: Date?, requireBoth: Bool) -> Bool {
        guard let a, let b else { return !requireBoth }
        return abs(a.timeIntervalSince(b)) <= maximumSecondsApart
    }

    /// Whether a photo and a movie are one Live Photo: equal content identifiers; never when only one has one; with
    /// neither, capture times within 2 s, both known (the caller has matched folder and stem).
    static func livePartners(_ photo: (identifier: String?, date: Date?), _ movie: (identifier: String?, date: Date?))
        -> Bool
    {
        if let a = photo.identifier, let b = movie.identifier { return a == b }
        if photo.identifier != nil || movie.identifier != nil { return false }
        return closeInTime(photo.date, movie.date, requireBoth: true)
    }
}
