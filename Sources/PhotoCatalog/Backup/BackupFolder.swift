import FoundationEssentials
import PhotodropSystem

/// The folder `photodrop backup DEST` writes into, and how its backups are named (a photodrop addition).
///
/// Each backup is a complete library folder named by the UTC time it was started, `2026-12-02T16-30-00Z` (a second
/// backup in the same second gets `-2`, and so on): `library.sqlite`, `originals/` and `derivatives/`, with the
/// files that did not change since the previous backup hard-linked from it. A backup is written as
/// `<name>.incomplete` and renamed to `<name>` only after it was verified, so a name without the suffix is always a
/// complete, verified backup; the newest of those is the one a restore takes and the next backup links from.
public enum BackupFolder {
    /// The suffix of a backup being written, or one that failed its verification.
    public static let incompleteSuffix = ".incomplete"

    /// One backup in the folder.
    public struct Entry: Sendable, Hashable {
        /// The folder's name in the backup folder.
        public var name: String
        /// Whether it was completed and verified (its name has no ``BackupFolder/incompleteSuffix``).
        public var isComplete: Bool
        /// When it was started, from its name.
        public var date: Date
        /// The number after the time for backups started in the same second (1 for the first).
        public var sequence: Int
    }

    /// The backups in the folder at `path`, oldest first; other entries are ignored.
    public static func backups(in path: String) throws(SystemError) -> [Entry] {
        let folder = try Directory.open(atPath: path)
        var entries: [Entry] = []
        let stream = try folder.entries()
        while let entry = try stream.next() {
            guard let parsed = parse(entry.name) else { continue }
            guard let info = try folder.status(entry.name), info.isDirectory else { continue }
            entries.append(parsed)
        }
        return entries.sorted { ($0.date, $0.sequence, $0.name) < ($1.date, $1.sequence, $1.name) }
    }

    /// The newest complete backup in the folder at `path`, or nil.
    public static func newestComplete(in path: String) throws(SystemError) -> Entry? {
        try backups(in: path).last { $0.isComplete }
    }

    /// The name for a backup started at `date`, as the `sequence`th of its second.
    public static func name(for date: Date, sequence: Int = 1) -> String {
        let stamp = UTCDateFields(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
            .stamp(timeSeparator: "-")
        return sequence > 1 ? "\(stamp)-\(sequence)" : stamp
    }

    /// The entry a folder name stands for, or nil for a name that is not a backup's.
    public static func parse(_ name: String) -> Entry? {
        var base = Substring(name)
        let isComplete = !name.hasSuffix(incompleteSuffix)
        if !isComplete { base = base.dropLast(incompleteSuffix.count) }
        let bytes = Array(base.utf8)
        guard bytes.count >= 20 else { return nil }
        let pattern = Array("dddd-dd-ddTdd-dd-ddZ".utf8)
        for (index, expected) in pattern.enumerated() {
            let byte = bytes[index]
            if expected == UInt8(ascii: "d") {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            } else if byte != expected {
                return nil
            }
        }
        var sequence = 1
        if bytes.count > 20 {
            guard bytes[20] == UInt8(ascii: "-"), bytes.count > 21, bytes.count <= 30,
                let number = Int(String(decoding: bytes[21...], as: UTF8.self)), number >= 2
            else { return nil }
            sequence = number
        }
        func field(_ start: Int, _ length: Int) -> Int {
            Int(String(decoding: bytes[start..<start + length], as: UTF8.self)) ?? 0
        }
        let seconds = UTCDateFields(
            year: field(0, 4), month: field(5, 2), day: field(8, 2), hour: field(11, 2), minute: field(14, 2),
            second: field(17, 2)
        ).secondsSince1970
        guard seconds >= 0 else { return nil }
        return Entry(
            name: name, isComplete: isComplete, date: Date(timeIntervalSince1970: TimeInterval(seconds)),
            sequence: sequence)
    }
}
