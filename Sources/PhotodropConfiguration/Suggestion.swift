/// "Did you mean …?" for mistyped keys, commands, options and values.
///
/// Uses the optimal-string-alignment distance (Levenshtein plus swapped neighbours), compared case-insensitively,
/// and only suggests a candidate that is close enough to be a plausible typo.
public enum Suggestion {
    /// The candidate closest to `word`, or nil when none is close enough to be a likely typo.
    ///
    /// A candidate qualifies when its distance is at most a third of its length (at least 1, at most 3), or when one
    /// is a prefix of the other and the shorter has at least 3 characters (`stat` → `status`).
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let other = candidate.lowercased()
            let distance = editDistance(lowered, other)
            let allowed = min(3, max(1, other.count / 3))
            let isPrefix =
                min(lowered.count, other.count) >= 3 && (other.hasPrefix(lowered) || lowered.hasPrefix(other))
            guard distance <= allowed || isPrefix else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// The optimal string alignment distance between two strings, counted in characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    value = min(value, previousPrevious[j - 2] + 1)
                }
                current[j] = value
            }
            swap(&previousPrevious, &previous)
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
