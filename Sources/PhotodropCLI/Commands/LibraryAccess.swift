import PhotodropSystem
import FoundationEssentials
import Ingest
import PhotoCatalog
import PhotodropConfiguration

/// The configured library, opened for a command, and the lookups commands share: assets and albums by identifier
/// (full or a unique prefix) and albums by title.
///
/// Opening never creates a library: when there is none yet, the command fails and says where it looked.
struct LibraryAccess {
    /// Prefixes shorter than this are refused, so that a slip of the finger cannot pick an asset at random.
    static let minimumPrefixLength = 4
    /// How many candidates an ambiguity message names.
    private static let candidatesShown = 5

    let library: PhotoLibrary
    let config: IngestConfig

    /// The library folder as configured.
    var path: String { config.library }

    /// The configured library, if it exists.
    ///
    /// - Throws: ``CommandFailure`` (exit 1) when there is no library yet, naming the folder and the configuration.
    static func open(_ config: IngestConfig) throws(CommandFailure) -> LibraryAccess {
        guard exists(config) else { throw CommandFailure(noLibraryMessage(config)) }
        return LibraryAccess(library: LibraryLocation.library(config), config: config)
    }

    /// Whether the configured library exists (its database file is there; for a PostgreSQL catalog, its folder of
    /// originals).
    static func exists(_ config: IngestConfig) -> Bool {
        LibraryLocation.state(of: config) == .library
    }

    /// "There is no library yet at …", with where the path came from and what to do.
    static func noLibraryMessage(_ config: IngestConfig) -> String {
        "there is no library yet at '\(config.library)' (\(configurationSource(config))). "
            + "'photodrop watch' or 'photodrop import' creates it; if it lives elsewhere, point --config at its "
            + "configuration."
    }

    /// Where the paths came from: the configuration file, or the defaults of the working directory.
    static func configurationSource(_ config: IngestConfig) -> String {
        if let file = config.sourceFile { return "library path from \(file)" }
        return "no configuration file; the default relative to \(config.baseDirectory)"
    }

    // MARK: Assets

    /// The asset with identifier `text`: a full identifier, a bare UUID, or a unique prefix of at least
    /// ``minimumPrefixLength`` characters. Assets in Recently Deleted and hidden ones are found too.
    func asset(_ text: String) throws -> Asset {
        let identifier = try resolve(text, objectType: .asset).identifier(or: failure(text, .asset))
        guard
            let asset = try Asset.fetchAssets(withLocalIdentifiers: [identifier], library: library).firstObject
        else {
            throw CommandFailure(
                "asset \(identifier) disappeared while it was being looked up (deleted by another process?); list "
                    + "the assets again with 'photodrop assets'")
        }
        return asset
    }

    // MARK: Albums

    /// The album or smart album with identifier `text` (full, or a unique prefix).
    func album(identifier text: String) throws -> AssetCollection {
        let resolution = try resolve(text, objectType: .assetCollection)
        guard case .found(let identifier) = resolution else {
            var failure = try failure(text, .assetCollection)(resolution)
            let titled = try albums(titled: text)
            if !titled.isEmpty {
                failure.message +=
                    ". '\(text)' is the title of "
                    + titled.map { "album \($0.localIdentifier)" }.joined(separator: " and ")
                    + "; use the identifier"
            }
            throw failure
        }
        return try collection(identifier)
    }

    /// The album or smart album titled `text` (compared in Unicode NFC, so that a title typed in either form is
    /// found), or else the one whose identifier it is or starts with.
    func album(titleOrIdentifier text: String) throws -> AssetCollection {
        let titled = try albums(titled: text)
        if titled.count == 1 { return titled[0] }
        if titled.count > 1 {
            throw CommandFailure(
                "\(titled.count) albums are titled '\(text)' ("
                    + titled.map(\.localIdentifier).joined(separator: ", ")
                    + "); give the identifier of the one you mean")
        }
        switch try resolve(text, objectType: .assetCollection) {
        case .found(let identifier):
            return try collection(identifier)
        case .notFound:
            throw CommandFailure(
                "no album is titled '\(text)', and no album identifier starts with it; list the albums with "
                    + "'photodrop albums'")
        case let other:
            throw try failure(text, .assetCollection)(other)
        }
    }

    /// Regular albums and smart albums whose title equals `title` in NFC.
    func albums(titled title: String) throws -> [AssetCollection] {
        let wanted = title.canonicallyComposed
        return try allCollections().filter { $0.title.canonicallyComposed == wanted }
    }

    /// Regular albums (creation order), then smart albums (fixed order).
    func allCollections() throws -> [AssetCollection] {
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library)
        let smart = try AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, library: library)
        return Array(albums) + Array(smart)
    }

    /// Album titles per asset identifier, for listings.
    func albumTitles(of assets: [Asset]) throws -> [String: [String]] {
        try library.albumMemberships(of: assets).mapValues { $0.map(\.title) }
    }

    private func collection(_ identifier: String) throws -> AssetCollection {
        guard
            let album = try AssetCollection.fetchAssetCollections(
                withLocalIdentifiers: [identifier], library: library
            ).firstObject
        else {
            throw CommandFailure(
                "album \(identifier) disappeared while it was being looked up (deleted by another process?); list "
                    + "the albums again with 'photodrop albums'")
        }
        return album
    }

    // MARK: Identifiers

    /// What an identifier typed by a person names.
    enum Resolution {
        case found(String)
        case notFound
        case tooShort(match: String)
        case ambiguous([String])

        func identifier(or failure: (Resolution) throws -> CommandFailure) throws -> String {
            if case .found(let identifier) = self { return identifier }
            throw try failure(self)
        }
    }

    /// Looks up the full identifier that `text` names.
    private func resolve(_ text: String, objectType: PhotoObjectType) throws -> Resolution {
        let trimmed = text.trimmingWhitespace()
        let matches = try library.localIdentifiers(
            withPrefix: trimmed, objectType: objectType, limit: LibraryAccess.candidatesShown + 1)
        if let exact = matches.first(where: { $0.lowercased() == trimmed.lowercased() }) {
            return .found(exact)
        }
        switch matches.count {
        case 0: return .notFound
        case 1:
            if trimmed.count < LibraryAccess.minimumPrefixLength { return .tooShort(match: matches[0]) }
            return .found(matches[0])
        default: return .ambiguous(matches)
        }
    }

    /// The failure for an identifier that names no single object, saying what to do.
    private func failure(_ text: String, _ objectType: PhotoObjectType) -> (Resolution) throws -> CommandFailure {
        { resolution in
            let noun = objectType == .asset ? "asset" : "album"
            switch resolution {
            case .found(let identifier):
                return CommandFailure("internal: \(identifier) was found")
            case .tooShort(let match):
                return CommandFailure(
                    "'\(text)' is too short to name an \(noun); give at least \(LibraryAccess.minimumPrefixLength) "
                        + "characters of its identifier (it would match \(match))")
            case .ambiguous(let matches):
                let shown = matches.prefix(LibraryAccess.candidatesShown).joined(separator: ", ")
                let more = matches.count > LibraryAccess.candidatesShown ? ", …" : ""
                return CommandFailure(
                    "'\(text)' is ambiguous: it starts the identifiers of several \(noun)s (\(shown)\(more)); type "
                        + "more of the identifier")
            case .notFound:
                let trimmed = text.trimmingWhitespace()
                var message = "no \(noun) has the identifier '\(text)'"
                if trimmed.count < 36 { message += " or one starting with it" }
                let other: PhotoObjectType = objectType == .asset ? .assetCollection : .asset
                if trimmed.count >= LibraryAccess.minimumPrefixLength,
                    let match = try library.localIdentifiers(withPrefix: trimmed, objectType: other, limit: 1).first
                {
                    message += "; it is the identifier of \(other == .asset ? "an asset" : "an album") (\(match))"
                } else {
                    message += "; list the \(noun)s and their identifiers with 'photodrop \(noun)s'"
                }
                return CommandFailure(message)
            }
        }
    }
}
