/// Decides which files a worker looks up among the library's stored contents before probing them.
///
/// A lookup only saves work when it finds the content (the probe is skipped and the writer has nothing to store);
/// when it does not, the file takes the full path, and the writer still recognises any duplicate exactly. A lookup
/// that misses is not free (a read transaction on a connection whose page cache every commit invalidates: on W1 it
/// cost about a tenth of the import's CPU time), so after ``missesBeforeSampling`` misses in a row only every
/// ``sampleInterval``-th file is looked up, until one is found again: a second import of the same tree still looks
/// up every file, a first import almost none.
public struct LookupSampling: Sendable {
    /// Misses in a row after which lookups are sampled.
    static let missesBeforeSampling = 64
    /// While sampling, one file in this many is looked up. (At 16, the lookups that missed still cost a measurable
    /// share of a first import's CPU time, see BENCHMARKS.md; a run of stored files is noticed within 64 files, and
    /// the few it passes take the full path, which recognises them as duplicates all the same.)
    static let sampleInterval = 64

    private var missesInRow = 0
    private var skipped = 0

    public init() {}

    /// Whether to look up the next file.
    mutating func shouldLookUp() -> Bool {
        guard missesInRow >= LookupSampling.missesBeforeSampling else { return true }
        skipped += 1
        if skipped >= LookupSampling.sampleInterval {
            skipped = 0
            return true
        }
        return false
    }

    /// What the lookup found.
    public mutating func record(found: Bool) {
        if found {
            missesInRow = 0
            skipped = 0
        } else {
            missesInRow += 1
        }
    }
}
