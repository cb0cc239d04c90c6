import FoundationEssentials
import PhotodropSystem

/// The consistency check behind ``PhotoLibrary/verify(deep:readOnly:)``: reads, never writes, and tolerates a writer working
/// on the library at the same time.
///
/// Order matters for running beside a writer. A writer records a block's placement intents in its ``IntentLog``
/// before it places a file, and commits the resource rows before the next block overwrites the log; a purge records a
/// removal intent in the transaction that deletes the row, and removes the file afterwards. So the check lists
/// `originals/` first, then reads the logs, then the catalog (in one snapshot): every listed file is then either
/// referenced, announced by an intent, or really an orphan. Files the snapshot expects but that are missing, and
/// orphans, are confirmed once more before they are reported, so that a change committing during the check never
/// shows up as a problem.
struct LibraryVerifier {
    let library: PhotoLibrary
    let deep: Bool
    /// Whether damage a deep check finds is recorded in the catalog (not for backups and other read-only copies).
    var recordsDamage = true

    private var libraryPath: String { library.url.path }

    /// One stored original as the catalog records it.
    private struct Original {
        var path: String
        var sha256: String
        var byteCount: Int64
        var assetUUID: String
        /// What an earlier deep check recorded (`hashMismatch`), or nil.
        var damage: String?
    }

    /// One placement intent.
    private struct Intent {
        var session: String
        var isRemoval: Bool
        var destination: String
    }

    /// One recorded derivative file: path, size, SHA-256, asset UUID.
    private typealias RecordedDerivative = (path: String, byteCount: Int64, sha256: String, assetUUID: String)

    /// Everything read from the catalog, in one read transaction.
    private struct Snapshot {
        var assetCount = 0
        var originals: [Original] = []
        var intents: [Intent] = []
        var assetsWithoutOriginal: [String] = []
        var derivatives: [RecordedDerivative] = []
        /// Stored paths named by more than one resource, with the assets naming them.
        var sharedPaths: [(path: String, assetUUIDs: [String])] = []
        var albumCountMismatches: [(uuid: String, title: String, stored: Int, actual: Int)] = []
        var integrityMessages: [String] = []
        var foreignKeyViolations = 0
        /// Why the catalog could not be read completely (damage); then no file is checked against it.
        var unreadableCatalog: String?
    }

    func run() throws -> VerificationReport {
        var issues: [VerificationIssue] = []
        // 1. The files, then the writers' intent logs, then the catalog (see the type's description).
        let listing = listStoredFiles()
        let derivativeListing = listStoredFiles(DerivativeFiles.folderName)
        let loggedIntents = readIntentLogs()
        // 2. The catalog.
        guard var snapshot = try library.read("verify the library", readSnapshot) else {
            throw PhotosError.noLibrary(at: libraryPath)
        }
        if let damage = snapshot.unreadableCatalog {
            var messages = snapshot.integrityMessages
            if !messages.contains(damage) { messages.append(damage) }
            let issues = messages.map { message in
                VerificationIssue(
                    kind: .databaseIntegrity, path: library.databasePath,
                    message: "SQLite reports damage in '\(library.databasePath)': \(message). The files could not be "
                        + "checked against it. Stop photodrop, copy the library folder away, and restore "
                        + "library.sqlite from a backup.")
            }
            return VerificationReport(
                issues: issues + listing.problems, isDeep: deep, assetCount: 0, originalCount: 0,
                filesOnDisk: listing.files.count, hashedBytes: 0, changesInFlight: 0)
        }
        let originalPaths = Set(snapshot.originals.map(\.path))
        // A log keeps its block's intents after the block committed; those are settled, not in flight.
        snapshot.intents += loggedIntents.filter { !originalPaths.contains($0.destination) }

        // 3. Changes in flight (writers alive) and interrupted ones (writers gone).
        var liveSessions: [String: Bool] = [:]
        var inFlight = Set<String>()
        var interrupted: [String: [Intent]] = [:]
        for intent in snapshot.intents {
            let isLive =
                liveSessions[intent.session]
                ?? {
                    let live = LibraryVerifier.isWriterAlive(session: intent.session, libraryPath: libraryPath)
                    liveSessions[intent.session] = live
                    return live
                }()
            inFlight.insert(intent.destination)
            inFlight.insert(LibraryVerifier.temporaryPath(for: intent.destination))
            if !isLive { interrupted[intent.session, default: []].append(intent) }
        }
        let liveIntentCount = snapshot.intents.count - interrupted.values.reduce(0) { $0 + $1.count }
        for (session, intents) in interrupted.sorted(by: { $0.key < $1.key }) {
            let placements = intents.filter { !$0.isRemoval }.count
            let removals = intents.count - placements
            var what: [String] = []
            if placements > 0 { what.append("\(placements) file placement\(placements == 1 ? "" : "s")") }
            if removals > 0 { what.append("\(removals) file removal\(removals == 1 ? "" : "s")") }
            issues.append(
                VerificationIssue(
                    kind: .interruptedChange, path: absolute(intents[0].destination),
                    message: "A writer stopped in the middle of a change (session \(session), e.g. killed or crashed) "
                        + "and left \(what.joined(separator: " and ")) unsettled. Nothing is lost: the next write to "
                        + "the library (starting 'photodrop watch', or any change) finishes or undoes them."))
        }

        // 4. Every original the catalog refers to.
        var hashedBytes: Int64 = 0
        var missingCandidates: [Original] = []
        // What the deep check learned, recorded in the catalog afterwards (a later drop of the same content then
        // replaces a damaged original instead of being thrown away as a duplicate).
        var foundDamaged: [DamageRecord] = []
        var foundHealed: [DamageRecord] = []
        let buffer = deep ? UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096) : nil
        defer { buffer?.deallocate() }
        for original in snapshot.originals {
            let path = absolute(original.path)
            let assetID = LocalIdentifier.asset(uuid: original.assetUUID)
            let found: FileStatus?
            do throws(SystemError) { found = try FileSystem.linkStatus(atPath: path) } catch {
                issues.append(unreadable(path, assetID, SystemError(code: error.code, call: "stat", path: path)))
                continue
            }
            guard let info = found else {
                missingCandidates.append(original)
                continue
            }
            guard info.isRegularFile else {
                issues.append(
                    VerificationIssue(
                        kind: .unreadableOriginal, path: path, assetIdentifier: assetID,
                        message: "The original of asset \(assetID) at '\(path)' is not a regular file (a directory "
                            + "or link stands in its place). Restore the file from a backup."))
                continue
            }
            if Int64(info.size) != original.byteCount {
                issues.append(
                    VerificationIssue(
                        kind: .sizeMismatch, path: path, assetIdentifier: assetID,
                        message: "The original of asset \(assetID) at '\(path)' has \(info.size) bytes, the "
                            + "catalog recorded \(original.byteCount): the file was changed or truncated. Restore it "
                            + "from a backup, or drop (or import) a good copy of the file: photodrop then replaces "
                            + "the damaged one and keeps it under damaged/."))
                continue
            }
            guard let buffer else { continue }
            do {
                let descriptor = try FileSystem.open(path, [.readOnly, .noControllingTerminal, .nonBlocking])
                let (sha256, count) = try SHA256.digest(ofFile: descriptor, path: path, buffer: buffer)
                let digest = sha256.hex
                hashedBytes += count
                if digest == original.sha256 {
                    if original.damage != nil {
                        foundHealed.append(DamageRecord(path: original.path, sha256: original.sha256))
                    }
                } else {
                    if original.damage == nil {
                        foundDamaged.append(DamageRecord(path: original.path, sha256: original.sha256))
                    }
                    issues.append(
                        VerificationIssue(
                            kind: .hashMismatch, path: path, assetIdentifier: assetID,
                            message: "The original of asset \(assetID) at '\(path)' has SHA-256 \(digest), the "
                                + "catalog recorded \(original.sha256): its content changed (bit rot, or an edit in "
                                + "place). Restore it from a backup, or drop (or import) a good copy of the file: "
                                + "photodrop then replaces the damaged one and keeps it under damaged/."))
                }
            } catch let error as SystemError {
                // Gone between the stat and the open: a purge that committed after the snapshot removes the row and
                // then the file, so this is confirmed against the catalog like any other missing original.
                if error.code == .noSuchFileOrDirectory || error.code == .notDirectory {
                    missingCandidates.append(original)
                } else {
                    issues.append(unreadable(path, assetID, error))
                }
            }
        }
        if !missingCandidates.isEmpty {
            // Confirm: a purge that committed after the snapshot removes rows and then files.
            let stillListed =
                try library.read("verify the library") { database in
                    try missingCandidates.filter { original in
                        try ResourcePath.isReferenced(original.path, in: database)
                    }
                } ?? []
            for original in stillListed where !FileSystem.exists(atPath: absolute(original.path)) {
                let assetID = LocalIdentifier.asset(uuid: original.assetUUID)
                issues.append(
                    VerificationIssue(
                        kind: .missingOriginal, path: absolute(original.path), assetIdentifier: assetID,
                        message: "The original of asset \(assetID) is missing: '\(absolute(original.path))' does not "
                            + "exist. Restore it from a backup, drop (or import) a good copy of the file (photodrop "
                            + "then stores it there), or delete the asset ('photodrop delete \(assetID)')."))
            }
        }

        // 5. Files nobody refers to.
        for relative in listing.files.subtracting(originalPaths).subtracting(inFlight).sorted() {
            let path = absolute(relative)
            guard FileSystem.exists(atPath: path) else { continue }
            let name = Path.lastComponent(of: relative)
            let message: String
            if name.hasPrefix(".") && name.hasSuffix(".partial") {
                message = "'\(path)' is an unfinished copy that no change in flight owns; it is safe to delete."
            } else {
                message =
                    "'\(path)' is under originals/ but no asset refers to it. Import it again if it is wanted "
                    + "('photodrop import'), then delete it."
            }
            issues.append(VerificationIssue(kind: .orphanFile, path: path, message: message))
        }

        // 5b. Thumbnails and previews: made again from their originals, so what is wrong with them is repairable.
        hashedBytes += checkDerivatives(snapshot.derivatives, listing: derivativeListing.files, into: &issues)

        // 6. Files crash recovery set aside.
        let recovered = libraryPath + "/recovered"
        if let names = try? FileManager.default.contentsOfDirectory(atPath: recovered) {
            for name in names.sorted() {
                issues.append(
                    VerificationIssue(
                        kind: .recoveredFile, path: recovered + "/" + name,
                        message: "'\(recovered)/\(name)' was set aside by crash recovery because its original place "
                            + "was taken. Import it again if it is wanted, then delete it."))
            }
        }

        // 6b. Damaged originals that a good copy replaced.
        let damaged = libraryPath + "/" + WriterConnection.damagedFolder
        if let names = try? FileManager.default.contentsOfDirectory(atPath: damaged) {
            for name in names.sorted() {
                issues.append(
                    VerificationIssue(
                        kind: .damagedOriginalKept, path: damaged + "/" + name,
                        message: "'\(damaged)/\(name)' is a stored original that was missing its bytes or had the "
                            + "wrong ones; a good copy of the same content replaced it. It is kept for you to "
                            + "inspect (was the disk failing?); delete it when you are done."))
            }
        }

        // 7. The catalog's own consistency.
        for uuid in snapshot.assetsWithoutOriginal {
            let assetID = LocalIdentifier.asset(uuid: uuid)
            issues.append(
                VerificationIssue(
                    kind: .assetWithoutOriginal, assetIdentifier: assetID,
                    message: "Asset \(assetID) has no stored original in the catalog. Delete it ('photodrop delete "
                        + "\(assetID)') and import the file again."))
        }
        for shared in snapshot.sharedPaths {
            let assetIDs = shared.assetUUIDs.map { LocalIdentifier.asset(uuid: $0) }
            issues.append(
                VerificationIssue(
                    kind: .sharedOriginal, path: absolute(shared.path), assetIdentifier: assetIDs.first,
                    message: "'\(absolute(shared.path))' is the stored original of \(assetIDs.count) resources "
                        + "(assets \(assetIDs.joined(separator: ", "))); photodrop never names one file twice, so the "
                        + "catalog was edited by hand or damaged. Restore library.sqlite from a backup."))
        }
        for mismatch in snapshot.albumCountMismatches {
            let albumID = LocalIdentifier.collection(uuid: mismatch.uuid)
            issues.append(
                VerificationIssue(
                    kind: .albumCountMismatch, albumIdentifier: albumID,
                    message: "Album '\(mismatch.title)' (\(albumID)) records \(mismatch.stored) visible assets but "
                        + "has \(mismatch.actual). Listings are still right; report this as a photodrop bug."))
        }
        for message in snapshot.integrityMessages {
            issues.append(
                VerificationIssue(
                    kind: .databaseIntegrity, path: library.databasePath,
                    message: "SQLite reports damage in '\(library.databasePath)': \(message). Stop photodrop, copy "
                        + "the library folder away, and restore library.sqlite from a backup."))
        }
        if snapshot.foreignKeyViolations > 0 {
            issues.append(
                VerificationIssue(
                    kind: .databaseIntegrity, path: library.databasePath,
                    message: "\(snapshot.foreignKeyViolations) rows of '\(library.databasePath)' refer to rows that do "
                        + "not exist (foreign_key_check). Restore library.sqlite from a backup."))
        }

        let order = Dictionary(uniqueKeysWithValues: VerificationIssue.Kind.allCases.enumerated().map { ($1, $0) })
        let sorted = issues.enumerated().sorted { lhs, rhs in
            let (left, right) = (order[lhs.element.kind]!, order[rhs.element.kind]!)
            if left != right { return left < right }
            return lhs.offset < rhs.offset
        }.map(\.element)
        var note: String?
        if recordsDamage && (!foundDamaged.isEmpty || !foundHealed.isEmpty) {
            do {
                try library.recordDamage(found: foundDamaged, healed: foundHealed)
            } catch {
                note =
                    "the damage found could not be recorded in the catalog (\(error)); run 'photodrop verify --deep' "
                    + "as the library's owner so that a good copy dropped later replaces the damaged file"
            }
        }
        return VerificationReport(
            issues: sorted + listing.problems + derivativeListing.problems, isDeep: deep, assetCount: snapshot.assetCount,
            originalCount: snapshot.originals.count, filesOnDisk: listing.files.count, hashedBytes: hashedBytes,
            changesInFlight: liveIntentCount, note: note)
    }

    private func absolute(_ relative: String) -> String { libraryPath + "/" + relative }

    /// Recorded derivatives that are missing, of the wrong size or (deep) the wrong bytes, and files under
    /// `derivatives/` that no row names. A file written in the last ten minutes and not yet recorded belongs to a
    /// derivative being stored (by any process) and is left out. Returns the bytes hashed.
    private func checkDerivatives(
        _ recorded: [RecordedDerivative], listing: Set<String>,
        into issues: inout [VerificationIssue]
    ) -> Int64 {
        var hashed: Int64 = 0
        var suspects: [(derivative: RecordedDerivative, problem: String)] = []
        let buffer = deep ? UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096) : nil
        defer { buffer?.deallocate() }
        for derivative in recorded {
            let path = absolute(derivative.path)
            let found = try? FileSystem.linkStatus(atPath: path)
            var problem: String?
            if found == nil || found?.isRegularFile == false {
                problem = "is missing"
            } else if let info = found, info.size != derivative.byteCount {
                problem = "has \(info.size) bytes, the catalog recorded \(derivative.byteCount)"
            } else if let buffer {
                if let descriptor = try? FileSystem.open(path, [.readOnly, .noControllingTerminal, .nonBlocking]),
                    let (digest, count) = try? SHA256.digest(ofFile: descriptor, path: path, buffer: buffer)
                {
                    hashed += count
                    if digest.hex != derivative.sha256 { problem = "does not have the bytes the catalog recorded" }
                } else {
                    problem = "cannot be read"
                }
            }
            guard let problem else { continue }
            suspects.append((derivative, problem))
        }
        // Confirm: a purge (or 'thumbnails' making one again) that committed after the snapshot changes the rows
        // first and the files afterwards; only a derivative the catalog still records as it was is reported.
        // If the catalog cannot be read again, every suspect is reported: a check errs towards saying too much.
        let confirmed =
            suspects.isEmpty
            ? []
            : (try? library.read("verify the library") { database in
                try suspects.filter { suspect in
                    try database.int64(
                        "SELECT 1 FROM derivatives WHERE path = ? AND sha256 = ? LIMIT 1",
                        [.text(suspect.derivative.path), .text(suspect.derivative.sha256)]) != nil
                }
            }) ?? suspects
        for (derivative, problem) in confirmed {
            let path = absolute(derivative.path)
            let assetID = LocalIdentifier.asset(uuid: derivative.assetUUID)
            issues.append(
                VerificationIssue(
                    kind: .damagedDerivative, path: path, assetIdentifier: assetID,
                    message: "The thumbnail or preview of asset \(assetID) at '\(path)' \(problem). Nothing of the "
                        + "original is lost; 'photodrop thumbnails' makes it again."))
        }
        let referenced = Set(recorded.map(\.path))
        let settled = Date().timeIntervalSince1970 - 600
        for relative in listing.subtracting(referenced).sorted() {
            let path = absolute(relative)
            guard let info = try? FileSystem.linkStatus(atPath: path),
                Double(info.modification.seconds) < settled
            else { continue }
            issues.append(
                VerificationIssue(
                    kind: .orphanDerivative, path: path,
                    message: "'\(path)' is under derivatives/ but no asset refers to it (left by an interrupted "
                        + "'thumbnails' run or a crash); it is safe to delete, and 'photodrop thumbnails' removes it."))
        }
        return hashed
    }

    private func unreadable(_ path: String, _ assetID: String, _ error: SystemError) -> VerificationIssue {
        VerificationIssue(
            kind: .unreadableOriginal, path: path, assetIdentifier: assetID,
            message: "The original of asset \(assetID) cannot be read: \(error). Check the file's permissions and the "
                + "disk.")
    }

    // MARK: Files

    /// The files under `originals/` or `derivatives/` (the library's two-level folders), as paths relative to the
    /// library (`originals/ab/<name>`).
    private func listStoredFiles(_ folder: String = "originals") -> (files: Set<String>, problems: [VerificationIssue]) {
        var files = Set<String>()
        var problems: [VerificationIssue] = []
        let root = libraryPath + "/" + folder
        func list(_ path: String) -> [String]? {
            do {
                return try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                do { if try FileSystem.linkStatus(atPath: path) == nil { return [] } } catch {}
                problems.append(
                    VerificationIssue(
                        kind: .unreadableFolder, path: path,
                        message: "'\(path)' cannot be listed, so the files in it were not checked: "
                            + "\(error). Check its permissions."))
                return nil
            }
        }
        guard let top = list(root) else { return (files, problems) }
        for name in top {
            let path = root + "/" + name
            let isDirectory = (try? FileSystem.linkStatus(atPath: path))?.isDirectory ?? false
            guard isDirectory else {
                files.insert(folder + "/" + name)
                continue
            }
            for inner in list(path) ?? [] { files.insert(folder + "/" + name + "/" + inner) }
        }
        return (files, problems)
    }

    /// Whether the writer of `session` still runs: it holds an exclusive `flock` on its lock file. Tested with a
    /// shared non-blocking lock that is released at once; unlike the writer's own reconciliation this never removes
    /// the lock file.
    /// The intents in the writers' ``IntentLog``s (read between listing the files and reading the catalog: a block
    /// whose log is overwritten after this read committed before it, so the catalog has its rows).
    private func readIntentLogs() -> [Intent] {
        var intents: [Intent] = []
        for (session, path) in IntentLog.logs(in: libraryPath + "/locks") {
            for entry in IntentLog.read(path: path)?.entries ?? [] {
                intents.append(
                    Intent(session: session, isRemoval: entry.action == .remove, destination: entry.destination))
            }
        }
        return intents
    }

    static func isWriterAlive(session: String, libraryPath: String) -> Bool {
        let path = libraryPath + "/locks/" + session + ".lock"
        guard let descriptor = try? FileSystem.open(path, .readOnly) else { return false }
        do {
            if try descriptor.lock(.shared, wait: false, path: path) {
                descriptor.unlock()
                return false
            }
            return true
        } catch {
            return error.code == Errno.interrupted
        }
    }

    /// The hidden name a copy is written under before it is renamed into place (see
    /// `PlacementIntent.temporaryPath(for:)`), for a path relative to the library.
    static func temporaryPath(for destination: String) -> String {
        PlacementIntent.temporaryPath(for: destination)
    }

    // MARK: Catalog

    private func readSnapshot(_ database: Database) throws -> Snapshot {
        var snapshot = Snapshot()
        // SQLite's own check first: when the file is damaged, the queries below may fail, and the damage is the
        // finding to report.
        // PostgreSQL checks its pages and enforces the foreign keys itself: there is no file of ours to check.
        if !database.isPostgres {
            do {
                let pragma = deep ? "PRAGMA integrity_check" : "PRAGMA quick_check"
                snapshot.integrityMessages = try database.rows(pragma) { $0.string(0) }.filter { $0 != "ok" }
                snapshot.foreignKeyViolations = try database.rows("PRAGMA foreign_key_check") { _ in 1 }.count
            } catch let error as DatabaseError where LibraryVerifier.isDamage(error) {
                snapshot.integrityMessages.append(error.message)
            }
        }
        do {
            try readCatalog(database, into: &snapshot)
        } catch let error as DatabaseError where LibraryVerifier.isDamage(error) {
            snapshot.unreadableCatalog = error.message
        }
        return snapshot
    }

    /// Whether SQLite says the file is damaged (rather than busy, full, or unreadable).
    private static func isDamage(_ error: DatabaseError) -> Bool {
        error.resultCode == 11 || error.resultCode == 26  // SQLITE_CORRUPT, SQLITE_NOTADB
    }

    private func readCatalog(_ database: Database, into snapshot: inout Snapshot) throws {
        snapshot.assetCount = Int(try database.int64("SELECT count(*) FROM assets") ?? 0)
        snapshot.originals = try database.rows(
            "SELECT r.path, r.sha256, r.byte_count, a.uuid, r.damage FROM resources r JOIN assets a "
                + "ON a.id = r.asset_id ORDER BY r.path"
        ) { row in
            Original(
                path: row.string(0), sha256: row.string(1), byteCount: row.int64(2), assetUUID: row.string(3),
                damage: row.optionalString(4))
        }
        snapshot.derivatives = try database.rows(
            "SELECT d.path, d.byte_count, d.sha256, a.uuid FROM derivatives d JOIN assets a ON a.id = d.asset_id "
                + "WHERE d.path IS NOT NULL ORDER BY d.path"
        ) { row in (row.string(0), row.int64(1), row.string(2), row.string(3)) }
        snapshot.intents = try database.rows(
            "SELECT session, action, destination FROM placement_intents ORDER BY id"
        ) { row in
            Intent(
                session: row.string(0), isRemoval: row.int(1) == PlacementIntent.Action.remove.rawValue,
                destination: row.string(2))
        }
        // Sorted by path: resources naming the same file are neighbours.
        var index = snapshot.originals.startIndex
        while index < snapshot.originals.endIndex {
            let path = snapshot.originals[index].path
            var end = index + 1
            while end < snapshot.originals.endIndex && snapshot.originals[end].path == path { end += 1 }
            if end - index > 1 {
                snapshot.sharedPaths.append((path, snapshot.originals[index..<end].map(\.assetUUID)))
            }
            index = end
        }
        snapshot.assetsWithoutOriginal = try database.rows(
            "SELECT uuid FROM assets a WHERE NOT EXISTS (SELECT 1 FROM resources r WHERE r.asset_id = a.id) "
                + "ORDER BY uuid"
        ) { $0.string(0) }
        snapshot.albumCountMismatches = try database.rows(
            """
            SELECT uuid, title, asset_count, actual FROM (
                SELECT al.uuid, al.title, al.asset_count,
                       (SELECT count(*) FROM album_assets m JOIN assets a ON a.id = m.asset_id
                        WHERE m.album_id = al.id AND a.deleted_date IS NULL AND a.is_hidden = 0) AS actual
                FROM albums al
            ) counted WHERE asset_count != actual ORDER BY title, uuid
            """
        ) { row in (row.string(0), row.string(1), row.int(2), row.int(3)) }
    }
}

extension PhotosError {
    /// There is no library (no `library.sqlite`) at `path`.
    static func noLibrary(at path: String) -> PhotosError {
        PhotosError(
            .libraryVolumeOffline, title: "No library",
            message: "There is no library at '\(path)' (no \(PhotoLibrary.databaseName) in it). Check the path; a "
                + "library is created by its first write.")
    }
}
