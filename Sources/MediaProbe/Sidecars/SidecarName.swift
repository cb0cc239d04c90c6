/// Recognises sidecar files by name and finds the media file each belongs to, as exporters name them.
///
/// - XMP: `IMG_0001.CR2.xmp` belongs to `IMG_0001.CR2`; `IMG_0001.xmp` to the media file with the stem `IMG_0001`
///   (darktable writes the first form, Lightroom and Capture One the second).
/// - Google Takeout: `IMG_0001.jpg.json`, and since 2024 `IMG_0001.jpg.supplemental-metadata.json`. Takeout cuts
///   the JSON's name to 51 characters, so the marker may end anywhere (`….supplemental-met.json`, `….suppl.json`,
///   `….s.json`) and a long media name may be cut too (`Screenshot_20230101-120000_Some_Long_Name.j.json`,
///   `…_Some_Long_Na.json`): then the media file is the one whose name starts with what is left. The copy number of a
///   duplicate name moves before `.json`: `IMG_0001(1).jpg` has `IMG_0001.jpg(1).json` or
///   `IMG_0001.jpg.supplemental-metadata(1).json`. An edited copy (`IMG_0001-edited.jpg`) has no JSON of its own;
///   it shares its original's.
/// - A Takeout album's own `metadata.json` describes the album, not a photo.
///
/// Names compare case-insensitively (Windows and macOS exports change case).
public enum SidecarName {
    /// What kind of sidecar a name is.
    public enum Kind: String, Sendable, Hashable {
        case xmp
        case takeout
        /// A Takeout album's `metadata.json`.
        case takeoutAlbum
    }

    /// The kind of sidecar `fileName` is by its name, or nil for any other file.
    public static func kind(of fileName: String) -> Kind? {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".xmp") && lower.count > 4 { return .xmp }
        guard lower.hasSuffix(".json"), lower.count > 5 else { return nil }
        return lower == "metadata.json" || lower.hasPrefix("metadata(") && lower.hasSuffix(").json")
            ? .takeoutAlbum : .takeout
    }

    /// Takeout's limit on the length of a JSON file's name, `.json` included.
    static let takeoutNameLimit = 51

    /// The media file among `candidates` (names in the same folder) that the sidecar `fileName` belongs to, or nil.
    /// When several would do, an exact name wins over a stem or a cut-off name, and then the first in `candidates`.
    public static func media(forSidecar fileName: String, among candidates: [String]) -> String? {
        guard let kind = kind(of: fileName), kind != .takeoutAlbum else { return nil }
        let media = candidates.filter { self.kind(of: $0) == nil }
        let lowered = media.map { $0.lowercased() }
        let sidecar = fileName.lowercased()
        switch kind {
        case .xmp:
            let base = String(sidecar.dropLast(4))
            if let exact = lowered.firstIndex(of: base) { return media[exact] }
            // IMG_0001.xmp: the media file whose name without its extension is the same.
            if let byStem = lowered.firstIndex(where: { stem(of: $0) == base }) { return media[byStem] }
            return nil
        case .takeout:
            let (base, copy) = takeoutBase(sidecar)
            let wanted = copy.map { insert("(\($0))", beforeExtensionOf: base) } ?? base
            if let exact = lowered.firstIndex(of: wanted) { return media[exact] }
            // Cut to 51 characters: the media name starts with what is left (and the copy number, if any, follows
            // its stem).
            if fileName.utf8.count >= takeoutNameLimit - 1, !base.isEmpty {
                if let cut = lowered.firstIndex(where: {
                    $0.hasPrefix(base) && (copy == nil || stem(of: $0).hasSuffix("(\(copy!))"))
                }) {
                    return media[cut]
                }
            }
            // `IMG_0001.json` for `IMG_0001.jpg`: the stem.
            if let byStem = lowered.firstIndex(where: { stem(of: $0) == wanted }) { return media[byStem] }
            return nil
        case .takeoutAlbum:
            return nil
        }
    }

    /// A Takeout JSON name (lowercased) without `.json`, its copy number and its (maybe cut) supplemental marker.
    public static func takeoutBase(_ name: String) -> (base: String, copy: Int?) {
        var rest = Substring(name.dropLast(5))
        var copy: Int?
        if rest.hasSuffix(")"), let open = rest.lastIndex(of: "("),
            let number = Int(rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]), number > 0
        {
            copy = number
            rest = rest[..<open]
        }
        // `.supplemental-metadata`, or any start of it of at least `.s` that Takeout's cut left.
        let marker = ".supplemental-metadata"
        if let dot = rest.lastIndex(of: ".") {
            let tail = rest[dot...]
            if tail.count >= 2, marker.hasPrefix(tail), !rest[..<dot].isEmpty { rest = rest[..<dot] }
        }
        return (String(rest), copy)
    }

    /// The name without its last extension (`img_0001.cr2` → `img_0001`; a name without one is its own stem).
    public static func stem(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    private static func insert(_ text: String, beforeExtensionOf name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name + text }
        return String(name[..<dot]) + text + String(name[dot...])
    }
}
