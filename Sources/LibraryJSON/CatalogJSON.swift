import BuildInfo
import FoundationEssentials

import MediaProbe
import PhotoCatalog
import PhotodropTelemetry

/// Every `--json` shape of the command line, in one place, with the stable field names the README documents.
///
/// - asset: `id`, `kind`, `mime`, `sha256`, `bytes`, `originalFilename`, `creationDate` (the UTC instant),
///   `creationDateSource`, `localCreationDate` (see ``CaptureTime``), `timeZoneOffset` (`+09:00` or null),
///   `pixelWidth`, `pixelHeight`, `duration`, `isFavorite`, `albums` (titles), `path`; then `addedDate`, `isHidden`,
///   `isDeleted`, `deletedDate` (null unless in Recently Deleted), `mediaSubtypes` (`livePhoto`, `rawAndJpeg`,
///   `motionPhoto`, `edited`), `cameraMake`, `cameraModel`, `title`, `caption`, `keywords`, `rating` (from the file
///   or its sidecars; null or [] when none), how it was made (`fNumber`, `exposureTime`, `iso`, `focalLength`,
///   `focalLength35mm`, `flashFired`, `lensMake`, `lensModel`, `artist`, `copyright`, `imageDirection`,
///   `frameRate`; null when unknown), `resources` (each `type`, `originalFilename`, `bytes`, `sha256`; the primary
///   first), `location`.
/// - album: `id`, `title`, `count`, `type` (`album`/`smartAlbum`/`folder`), `parent` (the folder's id, or null).
/// - probe item: `path`, `outcome` (`photo`/`gif`/`video`/`rejected`/`failed`), `reason` (code or null), `message`,
///   `mime`, then the probe's other fields and its metadata.
/// - change: `token`, `date`, then `assets`, `albums` and `folders`, each with `inserted`, `updated`, `deleted`
///   identifiers.
///
/// Dates are ISO 8601 in UTC with milliseconds (`2024-05-01T12:00:00.000Z`).
public enum CatalogJSON {
    /// ISO 8601, UTC, milliseconds.
    public static func timestamp(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let seconds = Int64((milliseconds / 1000).rounded(.down))
        let remainder = Int32(milliseconds - Double(seconds) * 1000)
        return UTCTimestamp(seconds: seconds, nanoseconds: remainder * 1_000_000).iso8601
    }

    public static func date(_ date: Date?) -> JSONNode { date.map { .string(timestamp($0)) } ?? .null }

    /// An asset with the titles of the albums it is in.
    public static func asset(_ asset: Asset, albums: [String], derivatives: [Derivative]? = nil) -> JSONNode {
        var fields = assetFields(asset, albums: albums)
        if let derivatives {
            fields.append(
                (
                    "derivatives",
                    .array(
                        derivatives.map { derivative in
                            var fields: [(String, JSONNode)] = [("kind", .string(derivative.kind.name))]
                            if let file = derivative.file {
                                fields += [
                                    ("mime", .string(file.mimeType)), ("pixelWidth", .int(Int64(file.pixelWidth))),
                                    ("pixelHeight", .int(Int64(file.pixelHeight))), ("bytes", .int(file.byteCount)),
                                    ("sha256", .string(file.sha256)), ("path", .string(file.fileURL.path)),
                                ]
                            } else {
                                fields.append(("error", .string(derivative.failure)))
                            }
                            return .object(fields)
                        })
                ))
        }
        return .object(fields)
    }

    private static func assetFields(_ asset: Asset, albums: [String]) -> [(String, JSONNode)] {
        [
            ("id", .string(asset.localIdentifier)),
            ("kind", .string(asset.kind)),
            ("mime", .string(asset.mimeType)),
            ("sha256", .string(asset.sha256)),
            ("bytes", .int(asset.byteCount)),
            ("originalFilename", .string(asset.originalFilename)),
            ("creationDate", date(asset.creationDate)),
            ("creationDateSource", .string(asset.creationDateSource)),
            ("localCreationDate", .string(CaptureTime(asset)?.localISO8601)),
            ("timeZoneOffset", .string(asset.creationTimeZoneOffset.map(CaptureTime.offsetText))),
            ("pixelWidth", .int(asset.pixelWidth)),
            ("pixelHeight", .int(asset.pixelHeight)),
            ("duration", .double(asset.duration)),
            ("isFavorite", .bool(asset.isFavorite)),
            ("albums", .strings(albums)),
            ("path", .string(asset.originalURL?.path)),
            ("addedDate", date(asset.addedDate)),
            ("isHidden", .bool(asset.isHidden)),
            ("isDeleted", .bool(asset.isDeleted)),
            ("deletedDate", date(asset.deletedDate)),
            ("mediaSubtypes", .strings(asset.mediaSubtypes.names)),
            ("cameraMake", .string(asset.cameraMake)), ("cameraModel", .string(asset.cameraModel)),
            ("title", .string(asset.title)), ("caption", .string(asset.caption)),
            ("keywords", .strings(asset.keywords)), ("rating", asset.rating.map { .int(Int64($0)) } ?? .null),
        ] + captureFields(asset.captureDetails) + [
            (
                "resources",
                .array(
                    asset.resources.map { resource in
                        .object([
                            ("type", .string(resource.type.name)),
                            ("originalFilename", .string(resource.originalFilename)),
                            ("bytes", .int(resource.byteCount)), ("sha256", .string(resource.sha256)),
                        ])
                    })
            ),
            (
                "location",
                asset.location.map { location in
                    .object([
                        ("latitude", .double(location.latitude)), ("longitude", .double(location.longitude)),
                        ("altitude", location.altitude.map { .double($0) } ?? .null),
                    ])
                } ?? .null
            ),
        ]
    }

    /// How the asset was made (``CaptureDetails``), each field null when the file does not record it.
    private static func captureFields(_ details: CaptureDetails) -> [(String, JSONNode)] {
        func double(_ value: Double?) -> JSONNode { value.map { .double($0) } ?? .null }
        return [
            ("fNumber", double(details.fNumber)), ("exposureTime", double(details.exposureTime)),
            ("iso", details.iso.map { .int($0) } ?? .null), ("focalLength", double(details.focalLength)),
            ("focalLength35mm", double(details.focalLength35mm)),
            ("flashFired", details.flashFired.map { .bool($0) } ?? .null),
            ("lensMake", .string(details.lensMake)), ("lensModel", .string(details.lensModel)),
            ("artist", .string(details.artist)), ("copyright", .string(details.copyright)),
            ("imageDirection", double(details.imageDirection)), ("frameRate", double(details.frameRate)),
        ]
    }

    /// An album or smart album; `parent` is the folder it is in (null at the top level and for smart albums).
    public static func album(_ collection: AssetCollection) -> JSONNode {
        .object([
            ("id", .string(collection.localIdentifier)),
            ("title", .string(collection.title)),
            ("count", .int(collection.estimatedAssetCount)),
            ("type", .string(collection.assetCollectionType == .smartAlbum ? "smartAlbum" : "album")),
            ("parent", .string(collection.parentFolderIdentifier)),
            ("description", .string(collection.summary)),
            ("inboxFolder", .string(collection.bindingKey)),
        ])
    }

    /// A folder: `count` is the number of albums and folders directly in it.
    public static func folder(_ folder: CollectionList) -> JSONNode {
        .object([
            ("id", .string(folder.localIdentifier)),
            ("title", .string(folder.title)),
            ("count", .int(folder.estimatedChildCollectionCount)),
            ("type", .string("folder")),
            ("parent", .string(folder.parentFolderIdentifier)),
        ])
    }

    /// What `probe` decided about one file: `path`, `outcome`, `reason`, `message`, `mime`, then the other fields of
    /// ``ProbeResult``'s own encoding (its metadata keys included, `null` when unknown) in a fixed order.
    ///
    /// Built directly rather than through `JSONEncoder` (which cost twice the probe itself); a test checks that the
    /// keys and values are exactly those of the `Codable` encoding.
    public static func probeItem(
        path: String, result: ProbeResult, joins: (path: String, type: AssetResourceType)? = nil,
        partners: [(path: String, type: AssetResourceType)] = []
    ) -> JSONNode {
        let metadata = result.metadata
        func int(_ value: Int?) -> JSONNode { value.map { .int($0) } ?? .null }
        func double(_ value: Double?) -> JSONNode { value.map { .double($0) } ?? .null }
        let location: JSONNode =
            metadata.location.map { location in
                var members: [(String, JSONNode)] = [
                    ("latitude", .double(location.latitude)), ("longitude", .double(location.longitude)),
                ]
                if let altitude = location.altitude { members.append(("altitude", .double(altitude))) }
                return .object(members)
            } ?? .null
        var members: [(String, JSONNode)] = [
            ("path", .string(path)), ("outcome", .string(joins == nil ? result.outcome : "attached")),
            ("reason", .string(joins == nil ? result.rejection?.rawValue : nil)),
            ("message", .string(joins.map { "would be stored with \($0.path) as its \($0.type.name)" } ?? result.message)),
            ("mime", .string(result.mime)), ("fileExtension", .string(result.fileExtension)),
            ("isTruncated", .bool(result.isTruncated)), ("captureDate", date(metadata.captureDate)),
            ("captureDateSource", .string(metadata.captureDateSource?.rawValue)),
            ("captureTimeZoneOffset", int(metadata.captureTimeZoneOffset)),
            ("captureDateIsFloating", .bool(metadata.captureDateIsFloating)), ("gpsDate", date(metadata.gpsDate)), ("pixelWidth", int(metadata.pixelWidth)),
            ("pixelHeight", int(metadata.pixelHeight)), ("orientation", int(metadata.orientation)),
            ("duration", double(metadata.duration)), ("frameCount", int(metadata.frameCount)),
            ("isAnimated", .bool(metadata.isAnimated)), ("isMotionPhoto", .bool(metadata.isMotionPhoto)), ("container", .string(metadata.container)),
            ("videoCodec", .string(metadata.videoCodec)), ("audioCodec", .string(metadata.audioCodec)),
            ("make", .string(metadata.make)), ("model", .string(metadata.model)), ("location", location),
            ("contentIdentifier", .string(metadata.contentIdentifier)),
            ("title", .string(metadata.title)), ("caption", .string(metadata.caption)),
            ("keywords", .strings(metadata.keywords)), ("rating", int(metadata.rating)),
            ("artist", .string(metadata.artist)), ("copyright", .string(metadata.copyright)),
            ("fNumber", double(metadata.fNumber)), ("exposureTime", double(metadata.exposureTime)),
            ("iso", int(metadata.iso)), ("focalLength", double(metadata.focalLength)),
            ("focalLength35mm", double(metadata.focalLength35mm)), ("flashFired", metadata.flashFired.map { .bool($0) } ?? .null),
            ("lensMake", .string(metadata.lensMake)), ("lensModel", .string(metadata.lensModel)),
            ("imageDirection", double(metadata.imageDirection)), ("frameRate", double(metadata.frameRate)),
        ]
        // Only for files that pair with others named with them: `{"joins": PATH, "as": TYPE}` for a file that would be
        // stored as a resource of another file's asset, `{"with": [{"path", "as"}…]}` for that asset's primary file.
        if let joins {
            members.append(("pairing", .object([("joins", .string(joins.path)), ("as", .string(joins.type.name))])))
        } else if !partners.isEmpty {
            let with = partners.map { JSONNode.object([("path", .string($0.path)), ("as", .string($0.type.name))]) }
            members.append(("pairing", .object([("with", .array(with))])))
        }
        return .object(members)
    }

    /// A file `probe` could not read at all (missing, unreadable, not a regular file).
    public static func probeFailure(path: String, message: String) -> JSONNode {
        .object([
            ("path", .string(path)), ("outcome", .string("failed")), ("reason", .null), ("message", .string(message)),
            ("mime", .null),
        ])
    }

    /// One committed change of the persistent history.
    public static func change(_ change: PersistentChange) -> JSONNode {
        func details(_ type: PhotoObjectType) -> JSONNode {
            let details = change.changeDetails(for: type)
            return .object([
                ("inserted", .strings(details.insertedLocalIdentifiers.sorted())),
                ("updated", .strings(details.updatedLocalIdentifiers.sorted())),
                ("deleted", .strings(details.deletedLocalIdentifiers.sorted())),
            ])
        }
        return .object([
            ("token", .string(change.changeToken.stringValue)),
            ("date", date(change.date)),
            ("assets", details(.asset)),
            ("albums", details(.assetCollection)),
            ("folders", details(.collectionList)),
        ])
    }

    /// A verification report.
    public static func verification(_ report: VerificationReport) -> JSONNode {
        .object([
            ("clean", .bool(report.isClean)),
            ("deep", .bool(report.isDeep)),
            ("assets", .int(report.assetCount)),
            ("originals", .int(report.originalCount)),
            ("filesOnDisk", .int(report.filesOnDisk)),
            ("hashedBytes", .int(report.hashedBytes)),
            ("changesInFlight", .int(report.changesInFlight)),
            (
                "issues",
                .array(
                    report.issues.map { issue in
                        .object([
                            ("kind", .string(issue.kind.rawValue)),
                            ("path", .string(issue.path)),
                            ("assetId", .string(issue.assetIdentifier)),
                            ("albumId", .string(issue.albumIdentifier)),
                            ("message", .string(issue.message)),
                        ])
                    })
            ),
        ])
    }

    /// The report of `backup --json`.
    public static func backup(_ report: BackupReport) -> JSONNode {
        .object([
            ("complete", .bool(report.isComplete)),
            ("backup", .string(report.path)),
            ("name", .string(report.name)),
            ("previous", .string(report.previousPath)),
            ("assets", .int(report.assetCount)),
            ("originals", .int(report.originalCount)),
            ("derivatives", .int(report.derivativeCount)),
            ("linked", .int(report.linkedFiles)),
            ("linkedBytes", .int(report.linkedBytes)),
            ("copied", .int(report.copiedFiles)),
            ("copiedBytes", .int(report.copiedBytes)),
            ("databaseBytes", .int(report.databaseBytes)),
            ("derivativesLeftOut", .int(report.derivativesLeftOut)),
            ("seconds", .double((report.seconds * 1000).rounded() / 1000)),
            (
                "problems",
                .array(
                    report.problems.map { problem in
                        .object([
                            ("kind", .string(problem.kind.rawValue)),
                            ("path", .string(problem.path)),
                            ("assetId", .string(problem.assetIdentifier)),
                            ("message", .string(problem.message)),
                        ])
                    })
            ),
            ("verification", report.verification.map(verification) ?? .null),
        ])
    }

}
