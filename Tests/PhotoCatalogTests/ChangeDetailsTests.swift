import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

/// A small seedable generator (SplitMix64) so that a failing sequence can be replayed from its printed seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The fetches an observer watches.
struct WatchedResults: Sendable {
    var album: FetchResult<Asset>
    var favouritesNewestFirst: FetchResult<Asset>
    var allPhotos: FetchResult<Asset>
    var albums: FetchResult<AssetCollection>
    var smartAlbums: FetchResult<AssetCollection>

    static func fetch(_ library: PhotoLibrary, albumID: String) throws -> WatchedResults {
        let album = try #require(
            AssetCollection.fetchAssetCollections(withLocalIdentifiers: [albumID], library: library).firstObject)
        let allPhotos = try #require(
            AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumUserLibrary, library: library)
                .firstObject)
        return WatchedResults(
            album: try Asset.fetchAssets(in: album),
            favouritesNewestFirst: try Asset.fetchAssets(
                with: FetchOptions(
                    predicate: .isFavorite(true),
                    sortDescriptors: [FetchSortDescriptor(key: .creationDate, ascending: false)]),
                library: library),
            allPhotos: try Asset.fetchAssets(in: allPhotos),
            albums: try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library),
            smartAlbums: try AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, library: library))
    }
}

/// One difference between the library's change details and the brute-force diff.
struct Mismatch: Sendable, CustomStringConvertible {
    let what: String
    var description: String { what }
}

/// Checks change details against a brute-force comparison of the lists before and after.
enum BruteForce {
    static func check<T: PhotoObject>(
        _ name: String, before: FetchResult<T>, after: [T], details: FetchResultChangeDetails<T>?
    ) -> [Mismatch] {
        let old = before.objects
        let beforeIDs = old.map(\.localIdentifier)
        let afterIDs = after.map(\.localIdentifier)
        let removed = IndexSet(beforeIDs.indices.filter { !afterIDs.contains(beforeIDs[$0]) })
        let inserted = IndexSet(afterIDs.indices.filter { !beforeIDs.contains(afterIDs[$0]) })
        let changed = IndexSet(
            afterIDs.indices.filter { index in
                guard let oldIndex = beforeIDs.firstIndex(of: afterIDs[index]) else { return false }
                return old[oldIndex] != after[index]
            })
        guard let details else {
            if old == after { return [] }
            return [Mismatch(what: "\(name): no details, but \(beforeIDs.count) → \(afterIDs.count) objects differ")]
        }
        var problems: [Mismatch] = []
        func expect(_ condition: Bool, _ text: @autoclosure () -> String) {
            if !condition { problems.append(Mismatch(what: "\(name): \(text())")) }
        }
        expect(details.fetchResultAfterChanges.objects == after, "fetchResultAfterChanges differs from a fresh fetch")
        expect(
            (details.removedIndexes ?? []) == removed,
            "removed \(details.removedIndexes.map(Array.init) ?? []) ≠ \(Array(removed))")
        expect(
            (details.insertedIndexes ?? []) == inserted,
            "inserted \(details.insertedIndexes.map(Array.init) ?? []) ≠ \(Array(inserted))")
        expect(
            (details.changedIndexes ?? []) == changed,
            "changed \(details.changedIndexes.map(Array.init) ?? []) ≠ \(Array(changed))")
        expect(details.removedObjects.map(\.localIdentifier) == removed.map { beforeIDs[$0] }, "removedObjects")
        expect(details.insertedObjects.map(\.localIdentifier) == inserted.map { afterIDs[$0] }, "insertedObjects")
        // Replay: inserted objects and move destinations at their new indexes, every other survivor in old order.
        var slots = [String?](repeating: nil, count: afterIDs.count)
        for index in inserted where index < slots.count { slots[index] = afterIDs[index] }
        var movedFrom = Set<Int>()
        details.enumerateMoves { from, to in
            guard from < beforeIDs.count, to < slots.count else {
                problems.append(Mismatch(what: "\(name): move \(from)→\(to) out of range"))
                return
            }
            slots[to] = beforeIDs[from]
            movedFrom.insert(from)
        }
        var rest = beforeIDs.indices.filter { !removed.contains($0) && !movedFrom.contains($0) }.map { beforeIDs[$0] }[
            ...]
        for index in slots.indices where slots[index] == nil { slots[index] = rest.popFirst() }
        expect(rest.isEmpty && slots.map { $0 ?? "-" } == afterIDs, "replaying the details does not give the new order")
        return problems
    }

    static func checkAll(before: WatchedResults, after: WatchedResults, change: PhotoLibraryChange) throws -> [Mismatch]
    {
        try check(
            "album", before: before.album, after: after.album.objects, details: change.changeDetails(for: before.album))
            + check(
                "favourites", before: before.favouritesNewestFirst, after: after.favouritesNewestFirst.objects,
                details: change.changeDetails(for: before.favouritesNewestFirst))
            + check(
                "all photos", before: before.allPhotos, after: after.allPhotos.objects,
                details: change.changeDetails(for: before.allPhotos))
            + check(
                "albums", before: before.albums, after: after.albums.objects,
                details: change.changeDetails(for: before.albums))
            + check(
                "smart albums", before: before.smartAlbums, after: after.smartAlbums.objects,
                details: change.changeDetails(for: before.smartAlbums))
    }
}

/// Keeps the watched results current from change details, as an app would, and checks each step.
final class RecordingObserver: PhotoLibraryChangeObserver, Sendable {
    struct State: Sendable {
        var results: WatchedResults
        var seen: [PersistentChangeToken] = []
        var problems: [Mismatch] = []
    }

    let state: Locked<State>
    let compare: @Sendable (PhotoLibraryChange, WatchedResults) throws -> [Mismatch]

    init(
        results: WatchedResults, compare: @escaping @Sendable (PhotoLibraryChange, WatchedResults) throws -> [Mismatch]
    ) {
        state = Locked(State(results: results))
        self.compare = compare
    }

    func photoLibraryDidChange(_ change: PhotoLibraryChange) {
        var current = state.value
        do {
            current.problems += try compare(change, current.results)
            func advance<T>(_ result: FetchResult<T>) throws -> FetchResult<T> {
                try change.changeDetails(for: result)?.fetchResultAfterChanges ?? result
            }
            current.results = WatchedResults(
                album: try advance(current.results.album),
                favouritesNewestFirst: try advance(current.results.favouritesNewestFirst),
                allPhotos: try advance(current.results.allPhotos), albums: try advance(current.results.albums),
                smartAlbums: try advance(current.results.smartAlbums))
        } catch {
            current.problems.append(Mismatch(what: "change details failed: \(error)"))
        }
        if let token = change.changeToken { current.seen.append(token) }
        state.value = current
    }
}

@Suite("Change observers and change details", CatalogGate.one)
struct ChangeDetailsTests {
    /// A random change, chosen from the library's current state.
    static func randomChange(
        _ library: PhotoLibrary, albumID: String, folder: TemporaryDirectory, random: inout SeededGenerator
    ) async throws -> String {
        let everything = try Asset.fetchAssets(with: FetchOptions(includeHiddenAssets: true), library: library).objects
        let deleted = try Asset.fetchAssets(
            in: #require(
                AssetCollection.fetchAssetCollections(
                    with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted, library: library
                ).firstObject)
        ).objects
        let album = try #require(
            AssetCollection.fetchAssetCollections(withLocalIdentifiers: [albumID], library: library).firstObject)
        let members = try Asset.fetchAssets(in: album).map(\.localIdentifier)
        let albumCount = members.count
        let others = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).objects
            .filter { $0.localIdentifier != albumID }
        let pick = { (list: [Asset], random: inout SeededGenerator) -> Asset? in list.randomElement(using: &random) }
        let kind = Int.random(in: 0..<12, using: &random)
        let newFiles = try folder.makeFiles(
            Int.random(in: 1...3, using: &random), prefix: "r\(random.next() % 100_000)-")
        let dates = newFiles.map { _ in Double.random(in: 0...1000, using: &random) }
        let favourite = Bool.random(using: &random)
        let index = Int.random(in: 0...max(0, albumCount), using: &random)
        let target = pick(everything, &random)
        let second = pick(everything, &random)
        let revived = pick(deleted, &random)
        let newDate = Double.random(in: 0...1000, using: &random)
        let other = others.randomElement(using: &random)
        let title = "T\(random.next() % 1000)"
        let description: String
        switch kind {
        case 0, 1:
            description = "create \(newFiles.count), add to album"
            try await library.performChanges {
                let change = try AssetCollectionChangeRequest(for: album)
                for (file, date) in zip(newFiles, dates) {
                    let request = try AssetCreationRequest.forAsset()
                    request.addResource(with: .photo, fileURL: file, options: nil)
                    request.creationDate = Date(timeIntervalSince1970: date)
                    request.isFavorite = favourite
                    if kind == 0 { change.addAssets([request.placeholderForCreatedAsset!]) }
                }
            }
        case 2:
            guard let target else { return "nothing" }
            description = "toggle favourite"
            try await library.performChanges { try AssetChangeRequest(for: target).isFavorite = !target.isFavorite }
        case 3:
            guard let target else { return "nothing" }
            description = "new creation date"
            try await library.performChanges {
                try AssetChangeRequest(for: target).creationDate = Date(timeIntervalSince1970: newDate)
            }
        case 4:
            guard let target else { return "nothing" }
            description = "toggle hidden"
            try await library.performChanges { try AssetChangeRequest(for: target).isHidden = !target.isHidden }
        case 5:
            guard let target, let second else { return "nothing" }
            description = "delete two"
            try await library.performChanges { try AssetChangeRequest.deleteAssets([target, second]) }
        case 6:
            guard let revived else { return "nothing" }
            description = "restore"
            try await library.performChanges { try AssetChangeRequest.restoreAssets([revived]) }
        case 7:
            guard let target else { return "nothing" }
            // An asset already in the album moves: it leaves its place first, so the list is one shorter.
            let limit = members.contains(target.localIdentifier) ? albumCount - 1 : albumCount
            description = "insert at \(min(index, limit))"
            try await library.performChanges {
                try AssetCollectionChangeRequest(for: album).insertAssets([target], at: IndexSet([min(index, limit)]))
            }
        case 8:
            guard albumCount > 1 else { return "nothing" }
            description = "move"
            try await library.performChanges {
                try AssetCollectionChangeRequest(for: album).moveAssets(
                    at: IndexSet([0]), to: min(index, albumCount - 1))
            }
        case 9:
            guard let target else { return "nothing" }
            description = "remove from album / purge"
            try await library.performChanges {
                if favourite {
                    try AssetCollectionChangeRequest(for: album).removeAssets([target])
                } else {
                    try AssetChangeRequest.purgeAssets([target])
                }
            }
        case 10:
            description = "album create/rename"
            try await library.performChanges {
                if let other, favourite {
                    try AssetCollectionChangeRequest(for: other).title = title
                } else {
                    _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
                }
            }
        default:
            guard let other else { return "nothing" }
            description = "album delete"
            try await library.performChanges { try AssetCollectionChangeRequest.deleteAssetCollections([other]) }
        }
        return description
    }

    @Test("indexes match a brute-force diff of before/after over random change sequences", arguments: CatalogBackend.all)
    func randomSequences(backend: CatalogBackend) async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededGenerator(seed: seed)
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let created = try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Watched")
        }
        let albumID = try #require(created.createdCollectionIdentifiers.first)
        for _ in 0..<3 { _ = try await Self.randomChange(library, albumID: albumID, folder: folder, random: &random) }

        let observer = RecordingObserver(results: try WatchedResults.fetch(library, albumID: albumID)) {
            change, before in
            try BruteForce.checkAll(
                before: before, after: WatchedResults.fetch(library, albumID: albumID), change: change)
        }
        library.register(observer)
        var steps: [String] = []
        for _ in 0..<60 {
            let before = try library.currentChangeToken
            let step = try await Self.randomChange(library, albumID: albumID, folder: folder, random: &random)
            steps.append(step)
            // Wait for the observer before the next change, so that a fresh fetch is the state the change left. A
            // step that changed nothing (say, a change of an album that turned out to be the one deleted) commits
            // nothing and notifies no one; with no notification seen yet, waiting for one would time out.
            let token = try library.currentChangeToken
            #expect(
                await eventually { token == before || observer.state.value.seen.last.map { $0 >= token } ?? false },
                "seed \(seed), steps \(steps): the observer saw \(observer.state.value.seen.suffix(3)), not token \(token)"
            )
            // The stored album counts equal what counting the members gives.
            for album in try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library) {
                #expect(album.estimatedAssetCount == (try Asset.fetchAssets(in: album).count), "seed \(seed), \(step)")
            }
        }
        library.unregister(observer)
        let problems = observer.state.value.problems
        #expect(problems.isEmpty, "seed \(seed), steps \(steps): \(problems)")
    }

    @Test("changes in quick succession: each notification describes exactly its own commit (read snapshots)", arguments: CatalogBackend.all)
    func quickSuccession(backend: CatalogBackend) async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededGenerator(seed: seed)
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let created = try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Watched")
        }
        let albumID = try #require(created.createdCollectionIdentifiers.first)
        // Each notification's own replay must hold, and following the details must end at the library's state.
        let observer = RecordingObserver(results: try WatchedResults.fetch(library, albumID: albumID)) {
            change, before in
            func replay<T>(_ name: String, _ result: FetchResult<T>) throws -> [Mismatch] {
                let details = try change.changeDetails(for: result)
                return BruteForce.check(
                    name, before: result, after: details?.fetchResultAfterChanges.objects ?? result.objects,
                    details: details)
            }
            return try replay("album", before.album) + replay("favourites", before.favouritesNewestFirst)
                + replay("all", before.allPhotos) + replay("albums", before.albums)
        }
        library.register(observer)
        for _ in 0..<30 { _ = try await Self.randomChange(library, albumID: albumID, folder: folder, random: &random) }
        let token = try library.currentChangeToken
        #expect(await eventually { observer.state.value.seen.last.map { $0 >= token } ?? false })
        library.unregister(observer)
        let final = observer.state.value
        let fresh = try WatchedResults.fetch(library, albumID: albumID)
        #expect(final.problems.isEmpty, "seed \(seed): \(final.problems)")
        #expect(final.results.album.objects == fresh.album.objects, "seed \(seed)")
        #expect(final.results.allPhotos.objects == fresh.allPhotos.objects, "seed \(seed)")
        #expect(final.results.favouritesNewestFirst.objects == fresh.favouritesNewestFirst.objects, "seed \(seed)")
        #expect(final.results.albums.objects == fresh.albums.objects, "seed \(seed)")
    }

    @Test("a journal-only change notifies nobody and writes no history; object change details", arguments: CatalogBackend.all)
    func objectDetails(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let file = try folder.write(TestFiles.distinctBytes(size: 50), to: "o.jpg")
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
        }
        let asset = try #require(Asset.fetchAssets(with: nil, library: library).firstObject)
        let changes = Locked<[PhotoLibraryChange]>([])
        final class Collector: PhotoLibraryChangeObserver, Sendable {
            let changes: Locked<[PhotoLibraryChange]>
            init(_ changes: Locked<[PhotoLibraryChange]>) { self.changes = changes }
            func photoLibraryDidChange(_ change: PhotoLibraryChange) { changes.withLock { $0.append(change) } }
        }
        let collector = Collector(changes)
        library.register(collector)
        let ids = try await library.appendJournalEntries(kind: "k", payloads: [Data([1])])
        let report = try await library.performChanges { try JournalChangeRequest.removeEntries(ids) }
        #expect(report.changeToken == nil)
        try await library.performChanges { try AssetChangeRequest(for: asset).isFavorite = true }
        #expect(await eventually { changes.value.count == 1 })
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(changes.value.count == 1, "the journal-only block notified nobody")
        let details = try #require(try changes.value.first?.changeDetails(for: asset))
        #expect(details.objectAfterChanges?.isFavorite == true && !details.objectWasDeleted)
        #expect(changes.value.first?.assetIdentifiers.updated == [asset.localIdentifier])
        library.unregister(collector)
    }
}
