import FoundationEssentials
import PhotodropSystem

/// A consistent, verified, incremental copy of a library into a backup folder (`photodrop backup DEST`; a photodrop
/// addition).
///
/// 1. The catalog is copied with SQLite's online backup API into `DEST/<time>.incomplete/library.sqlite`
///    (``PhotoLibrary/writeCatalogSnapshot(to:)``): one snapshot, taken while a writer may keep working. A catalog in
///    PostgreSQL is exported into that file from one `REPEATABLE READ` snapshot, so every backup is a SQLite library.
/// 2. Exactly the files that snapshot records are copied: an original or derivative whose path, size and SHA-256 are
///    the same in the newest complete backup is hard-linked from it (photodrop never changes a stored file in place),
///    every other one is read from the library once, hashed as it is written, and fsynced. Files stored after the
///    snapshot belong to the next backup. An original a purge removed after the snapshot cannot be copied: the
///    backup reports it and stays incomplete, and running it again succeeds. A thumbnail or preview that vanished
///    (replaced by a rebuild, purged) is left out of the copy's catalog, since `photodrop thumbnails` remakes it.
/// 3. The copy is verified: SQLite's `integrity_check`, the copied files read back (from the disk, not the page
///    cache) and compared with their SHA-256, and ``PhotoLibrary/verify(deep:readOnly:)`` of the whole copy (every
///    recorded file there with its size, nothing unrecorded).
/// 4. Only then is the folder renamed to `DEST/<time>`; a backup that failed keeps its `.incomplete` name.
///
/// Nothing is written into the library, and every file below `DEST` is made through an open folder without
/// following a link (`Directory`).
public struct LibraryBackup: Sendable {
    /// The library to back up.
    public let library: PhotoLibrary
    /// The backup folder (`DEST`), created when missing.
    public let destination: String

    public init(library: PhotoLibrary, destination: String) {
        self.library = library
        self.destination = Path.normalize(
            destination.hasPrefix("/") ? destination : Path.currentDirectory() + "/" + destination)
    }

    /// Makes one backup.
    ///
    /// - Returns: the report; ``BackupReport/isComplete`` is false when a file could not be backed up or the check
    ///   of the copy failed (the folder then keeps its `.incomplete` name, and the problems say what to do).
    /// - Throws: ``PhotosError`` when there is no library, when `DEST` is the library or inside it, or when the
    ///   backup folder or the catalog's copy cannot be written.
    public func run() throws -> BackupReport {
        let started = Date()
        let libraryPath = library.folderPath
        if Path.isSameOrBelow(Path.physical(destination), Path.physical(libraryPath)) {
            throw PhotosError.invalidParameter(
                "The backup folder '\(destination)' is inside the library '\(libraryPath)'; a backup must live "
                    + "outside it (ideally on another disk). Choose another folder.")
        }
        // A library in PostgreSQL has no catalog file: its folder (with the stored files) is what must exist.
        guard FileSystem.exists(atPath: library.catalog.isPostgres ? libraryPath : library.databasePath) else {
            throw PhotosError.noLibrary(at: libraryPath)
        }
        let root: Directory
        let previous: BackupFolder.Entry?
        let workingName: String
        let name: String
        do throws(SystemError) {
            try FileSystem.makeDirectories(destination, mode: 0o750)
            root = try Directory.open(atPath: destination)
            previous = try BackupFolder.newestComplete(in: destination)
            (name, workingName) = try LibraryBackup.makeWorkingFolder(
                in: root, startedAt: started, mode: library.permissions.folderMode)
        } catch {
            throw error.photosError(action: "prepare the backup folder '\(destination)'")
        }
        let workingPath = Path.join(destination, workingName)
        var report = BackupReport(
            path: workingPath, name: name, isComplete: false,
            previousPath: previous.map { Path.join(destination, $0.name) })

        // 1. The catalog.
        var snapshot: CatalogSnapshot
        do {
            snapshot = try library.writeCatalogSnapshot(to: Path.join(workingPath, PhotoLibrary.databaseName))
        } catch {
            try? root.removeDirectory(workingName)
            throw error
        }
        report.assetCount = snapshot.assetCount
        report.databaseBytes = snapshot.databaseBytes

        // 2. The files.
        let transfer: FileTransfer
        do throws(SystemError) {
            transfer = FileTransfer(
                library: try Directory.open(atPath: libraryPath), target: try root.directory(workingName),
                previous: previous.flatMap { try? root.directory($0.name) },
                previousFiles: previous.map { LibraryBackup.recordedFiles(Path.join(destination, $0.name)) } ?? [:],
                permissions: library.permissions)
        } catch {
            throw error.photosError(action: "open the library and the backup folder")
        }
        var seen = Set<String>()
        var vanishedDerivatives = Set<String>()
        for file in snapshot.files where seen.insert(file.path).inserted {
            switch transfer.transfer(file) {
            case .linked, .copied:
                break
            case .vanished where file.kind == .derivative:
                vanishedDerivatives.insert(file.path)
            case .vanished:
                report.problems.append(vanishedOriginal(file))
            case .damaged where file.kind == .derivative:
                vanishedDerivatives.insert(file.path)
                transfer.discard(file.path)
            case .damaged(let digest, let byteCount):
                let path = Path.join(libraryPath, file.path)
                report.problems.append(
                    BackupProblem(
                        kind: .damagedInLibrary, path: path, assetIdentifier: file.assetIdentifier,
                        message: "The original of asset \(file.assetIdentifier) at '\(path)' has \(byteCount) bytes "
                            + "with SHA-256 \(digest), the catalog recorded \(file.byteCount) bytes with "
                            + "\(file.sha256): it is damaged in the library, and the backup holds the same damaged "
                            + "bytes. Run 'photodrop verify --deep', restore the file from an older backup (or drop a "
                            + "good copy into the inbox), then back up again."))
            case .failed(let error):
                report.problems.append(
                    BackupProblem(
                        kind: .copyFailed, path: error.path, assetIdentifier: file.assetIdentifier,
                        message: "'\(file.path)' could not be backed up: \(error). Check the permissions and free "
                            + "space of the library and of '\(destination)', then back up again."))
            }
        }
        if !vanishedDerivatives.isEmpty {
            try snapshot.forgetDerivatives(atPaths: vanishedDerivatives)
            report.derivativesLeftOut = vanishedDerivatives.count
        }
        report.linkedFiles = transfer.linkedFiles
        report.linkedBytes = transfer.linkedBytes
        report.copiedFiles = transfer.copied.count
        report.copiedBytes = transfer.copiedBytes
        report.originalCount = snapshot.originals.count
        report.derivativeCount = snapshot.derivatives.count
        if let error = transfer.syncFolders() {
            report.problems.append(
                BackupProblem(
                    kind: .copyFailed, path: error.path,
                    message: "The backup's folders could not be synced to disk: \(error). Back up again."))
        }

        // 3. The check of the copy.
        report.problems += transfer.readBack()
        report.problems += LibraryBackup.integrityProblems(snapshot.databasePath)
        let copy = PhotoLibrary(url: URL(fileURLWithPath: workingPath))
        let verification = try copy.verify(deep: false, readOnly: true)
        report.verification = verification

        // 4. Complete.
        if report.problems.isEmpty && verification.isClean {
            do throws(SystemError) {
                guard try root.rename(workingName, to: root, as: name) else {
                    throw SystemError(code: Errno.fileExists, call: "renameat2", path: Path.join(destination, name))
                }
                try root.sync()
                report.isComplete = true
                report.path = Path.join(destination, name)
            } catch {
                throw error.photosError(action: "mark the backup '\(workingPath)' complete")
            }
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// The problem of an original that could not be opened in the library: removed by a change committed after the
    /// snapshot (a purge), or missing although the library still records it.
    private func vanishedOriginal(_ file: CatalogSnapshot.StoredFile) -> BackupProblem {
        let path = Path.join(library.folderPath, file.path)
        let stillRecorded =
            (try? library.read("look up a missing original") { database in
                try ResourcePath.isReferenced(file.path, in: database)
            }) ?? nil
        if stillRecorded == false {
            return BackupProblem(
                kind: .removedDuringBackup, path: path, assetIdentifier: file.assetIdentifier,
                message: "The original of asset \(file.assetIdentifier) ('\(path)') was removed from the library "
                    + "after the backup's snapshot was taken (Recently Deleted was purged meanwhile), so this backup "
                    + "cannot hold it. Nothing is wrong with the library: run 'photodrop backup' again.")
        }
        return BackupProblem(
            kind: .missingInLibrary, path: path, assetIdentifier: file.assetIdentifier,
            message: "The original of asset \(file.assetIdentifier) is missing from the library: '\(path)' does not "
                + "exist, though the catalog records it. Run 'photodrop verify' on the library, restore the file from "
                + "an older backup (or delete the asset), then back up again.")
    }

    /// Makes `<time>.incomplete` in the backup folder, with a sequence number when a backup of the same second
    /// exists. Returns the final name and the working name.
    private static func makeWorkingFolder(in root: Directory, startedAt date: Date, mode: UInt32) throws(SystemError)
        -> (String, String)
    {
        var sequence = 1
        while true {
            let name = BackupFolder.name(for: date, sequence: sequence)
            let working = name + BackupFolder.incompleteSuffix
            if !root.exists(name), try root.makeDirectory(working, mode: mode) { return (name, working) }
            sequence += 1
        }
    }

    /// The files a backup's catalog records, by path: size and SHA-256. Empty when it cannot be read (then nothing is
    /// linked from it).
    static func recordedFiles(_ backupPath: String) -> [String: FileTransfer.Recorded] {
        let path = Path.join(backupPath, PhotoLibrary.databaseName)
        guard let database = try? Database(path: path, mode: .readOnly) else { return [:] }
        var files: [String: FileTransfer.Recorded] = [:]
        let rows =
            (try? database.rows(
                "SELECT path, byte_count, sha256 FROM resources UNION ALL "
                    + "SELECT path, byte_count, sha256 FROM derivatives WHERE path IS NOT NULL"
            ) { row in (row.string(0), row.optionalInt64(1) ?? -1, row.optionalString(2) ?? "") }) ?? []
        for (path, byteCount, sha256) in rows {
            files[path] = FileTransfer.Recorded(byteCount: byteCount, sha256: sha256)
        }
        return files
    }

    /// SQLite's full `integrity_check` of the copied catalog.
    private static func integrityProblems(_ path: String) -> [BackupProblem] {
        do {
            let database = try Database(path: path, mode: .readOnly)
            let messages = try database.rows("PRAGMA integrity_check") { $0.string(0) }.filter { $0 != "ok" }
            return messages.map { message in
                BackupProblem(
                    kind: .databaseIntegrity, path: path,
                    message: "SQLite's integrity_check of the copied catalog '\(path)' reports: \(message). Run "
                        + "'photodrop verify --deep' on the library, then back up again.")
            }
        } catch {
            return [
                BackupProblem(
                    kind: .databaseIntegrity, path: path,
                    message: "The copied catalog '\(path)' cannot be read back: \(error). Back up again.")
            ]
        }
    }
}
