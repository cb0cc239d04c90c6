import PhotodropSystem

/// Which names of one folder share a pairing stem (``PairingStage/pairingStem(of:)``): `IMG_0001.JPG`,
/// `IMG_0001.CR2`, `IMG_E0001.HEIC`, `IMG_0001.AAE` and `IMG_0001.jpg.json` all have `img_0001`. One listing per
/// folder; a file "has a sibling" when another name of its folder has its stem.
struct StemSiblings {
    private var names: [String: [String]] = [:]

    /// The names of `directory`'s entries (nil or unreadable: none).
    init(listing directory: Directory?) {
        guard let directory, let stream = try? DirectoryStream(directory: directory) else { return }
        while let entry = try? stream.next() {
            guard entry.type != .directory, !entry.name.hasPrefix(".") else { continue }
            add(entry.name)
        }
    }

    init(names: [String]) {
        for name in names { add(name) }
    }

    private mutating func add(_ name: String) {
        names[PairingStage.pairingStem(of: name), default: []].append(name.lowercased())
    }

    /// Whether another name of the folder has `name`'s stem.
    func hasSibling(_ name: String) -> Bool {
        let own = name.lowercased()
        return names[PairingStage.pairingStem(of: name)]?.contains { $0 != own } ?? false
    }
}
