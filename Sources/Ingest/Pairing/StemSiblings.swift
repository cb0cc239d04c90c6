import MediaProbe
import PhotodropSystem

/// Which names of one folder share a pairing stem (``pairingStem(of:)``): `IMG_0001.JPG`, `IMG_0001.CR2`,
/// `IMG_E0001.HEIC`, `IMG_0001.AAE` and `IMG_0001.jpg.json` all have `img_0001`. One listing per folder; a file "has
/// a sibling" when another name of its folder has its stem.
struct StemSiblings {
    /// How many names of the folder have each stem that more than one name has (a folder of unrelated files keeps
    /// nothing).
    private var shared: [String: Int] = [:]

    /// The names of `directory`'s entries (nil or unreadable: none).
    init(listing directory: Directory?) {
        guard let directory, let stream = try? DirectoryStream(directory: directory) else { return }
        var counts: [String: Int] = [:]
        while let entry = try? stream.next() {
            guard entry.type != .directory, !entry.name.hasPrefix(".") else { continue }
            counts[Self.pairingStem(of: entry.name), default: 0] += 1
        }
        shared = counts.filter { $0.value > 1 }
    }

    init(names: [String]) {
        var counts: [String: Int] = [:]
        for name in names { counts[Self.pairingStem(of: name), default: 0] += 1 }
        shared = counts.filter { $0.value > 1 }
    }

    /// Whether another name of the folder has the stem of `name`, which is one of the folder's names.
    func hasSibling(_ name: String) -> Bool { hasSibling(stem: Self.pairingStem(of: name)) }

    /// Whether another name of the folder has this pairing stem (``pairingStem(of:)`` of one of its names).
    func hasSibling(stem: String) -> Bool { count(stem: stem) > 1 }

    /// How many names of the folder, `name` among them, have its stem: 1 when it has no sibling.
    func count(_ name: String) -> Int { count(stem: Self.pairingStem(of: name)) }

    /// How many names of the folder have this pairing stem (at least 1: the name it was taken from).
    func count(stem: String) -> Int { shared.isEmpty ? 1 : shared[stem] ?? 1 }

    /// The stem a file pairs by, lowercased: the name without its extension (`img_0001` for `IMG_0001.JPG`), and
    /// without a sidecar's own suffix first (`IMG_0001.CR2.xmp`, `IMG_0001.jpg.supplemental-metadata(1).json`), with
    /// an edited rendition's `E` taken out (`IMG_E0001.HEIC`). Works on bytes: it runs for every file an import or
    /// a claim sees.
    static func pairingStem(of name: String) -> String { stem(of: name, readingSidecarSuffixes: true) }

    /// ``pairingStem(of:)``; a Takeout `.json` name is taken back to its media file's name (its copy number and
    /// maybe cut `.supplemental-metadata` marker off, as SidecarName reads them), which is then stemmed like any name.
    private static func stem(of name: String, readingSidecarSuffixes: Bool) -> String {
        var name = name
        // Runs for every file an import lists and every job: read in place, one String made (none when it is short).
        let stem = name.withUTF8 { bytes -> String? in
            func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
            func hasSuffix(_ suffix: StaticString, before end: Int) -> Bool {
                let count = suffix.utf8CodeUnitCount
                guard end > count else { return false }
                return suffix.withUTF8Buffer { suffix in
                    (0..<count).allSatisfy { lower(bytes[end - count + $0]) == suffix[$0] }
                }
            }
            var end = bytes.count
            if readingSidecarSuffixes {
                if hasSuffix(".json", before: end) { return nil }  // Takeout: its media file's name first
                if hasSuffix(".xmp", before: end) { end -= 4 }
            }
            if let dot = bytes[..<end].lastIndex(of: UInt8(ascii: ".")), dot > 0 { end = dot }
            // img_e0001 → img_0001
            let edited =
                end > 5 && zip(bytes[..<5], "img_e".utf8).allSatisfy { lower($0) == $1 }
                && bytes[5..<end].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            return String(unsafeUninitializedCapacity: edited ? end - 1 : end) { out in
                var written = 0
                for index in 0..<end where !(edited && index == 4) {
                    out[written] = lower(bytes[index])
                    written += 1
                }
                return written
            }
        }
        return stem ?? Self.stem(of: SidecarName.takeoutBase(name.lowercased()).base, readingSidecarSuffixes: false)
    }
}
