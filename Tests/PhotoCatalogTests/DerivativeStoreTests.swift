import Foundation
import PhotodropSystem
import Testing
import TestFixtures

@testable import PhotoCatalog

/// Thumbnails and previews kept beside the originals: stored with their hash, out of date when the original changes,
/// gone with a purge, checked by verify.
@Suite("Stored derivatives", CatalogGate.one)
struct DerivativeStoreTests {
    private func store(_ bytes: Data, named name: String, in folder: TemporaryDirectory, library: PhotoLibrary)
        async throws -> String
    {
        let file = try folder.write(bytes, to: name)
        let identifier = Locked<String?>(nil)
        try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: file, options: nil)
            identifier.value = request.placeholderForCreatedAsset?.localIdentifier
        }
        return try #require(identifier.value)
    }

    private func picture(_ text: String) -> DerivativeContent.Picture {
        DerivativeContent.Picture(data: Data(text.utf8), mimeType: "image/webp", pixelWidth: 512, pixelHeight: 384)
    }

    @Test("stored, listed by kind, found by hash-named path, replaced by a rebuild, checked by verify", arguments: CatalogBackend.all)
    func storeAndReplace(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let id = try await store(TestFiles.distinctBytes(size: 3000), named: "a.jpg", in: folder, library: library)
        let source = try #require(try library.derivativeSource(ofAsset: id))
        #expect(source.resourceType == .photo)
        #expect(try library.derivativeSources(.missing, after: 0, limit: 10).sources.map(\.assetLocalIdentifier) == [id])

        let recorded = try await library.storeDerivatives([
            DerivativeContent(
                assetLocalIdentifier: id, kind: .thumbnail, sourceSHA256: source.sha256, result: .success(picture("t1"))),
            DerivativeContent(
                assetLocalIdentifier: id, kind: .preview, sourceSHA256: source.sha256,
                result: .failure(DerivativeFailure("no decoder"))),
        ])
        #expect(recorded.count == 2)
        let stored = try library.derivatives(ofAsset: id)
        #expect(stored.map(\.kind) == [.thumbnail, .preview])
        let thumbnail = try #require(stored[0].file)
        #expect(thumbnail.sha256 == (try SHA256.digest(of: Array("t1".utf8)).description))
        #expect(thumbnail.relativePath.hasPrefix("derivatives/"))
        #expect(thumbnail.relativePath.contains(String(thumbnail.sha256.prefix(16))))
        #expect(thumbnail.relativePath.hasSuffix(".webp"))
        #expect(try Data(contentsOf: thumbnail.fileURL) == Data("t1".utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: thumbnail.fileURL.path)[.posixPermissions] as? Int
        #expect(mode == Int(library.permissions.originalMode))
        #expect(stored[1].file == nil && stored[1].failure == "no decoder")
        #expect(library.openDerivative(thumbnail) != nil)
        // A failure counts as made: nothing is left to do.
        #expect(try library.derivativeSources(.missing, after: 0, limit: 10).sources.isEmpty)
        #expect(try library.derivativeSources(.all, after: 0, limit: 10).sources.count == 1)
        #expect(try library.verify().isClean)

        // A rebuild with other bytes: a new file, the old one removed after the commit.
        try await library.storeDerivatives([
            DerivativeContent(
                assetLocalIdentifier: id, kind: .thumbnail, sourceSHA256: source.sha256, result: .success(picture("t2")))
        ])
        let rebuilt = try #require(try library.derivatives(ofAsset: id).first?.file)
        #expect(rebuilt.relativePath != thumbnail.relativePath)
        #expect(!FileManager.default.fileExists(atPath: thumbnail.fileURL.path))
        #expect(try Data(contentsOf: rebuilt.fileURL) == Data("t2".utf8))

        // A file cut short is found by its size, both by verify and when opened.
        try Data("t".utf8).write(to: rebuilt.fileURL)
        #expect(library.openDerivative(rebuilt) == nil)
        #expect(try library.derivativeSources(.missing, after: 0, limit: 10).sources.isEmpty)
        #expect(try library.derivativeSources(.missingOrDamaged, after: 0, limit: 10).sources.map(\.assetLocalIdentifier) == [id])
        #expect(try library.derivativeSourceCount() == 1)
        let report = try library.verify()
        #expect(report.issues.map(\.kind) == [.damagedDerivative])
        #expect(report.issues.first?.assetIdentifier == id)
    }

    @Test("a derivative of an original that is no longer current, or of an asset that is gone, is not kept", arguments: CatalogBackend.all)
    func staleAndGone(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let id = try await store(TestFiles.distinctBytes(size: 3000), named: "a.jpg", in: folder, library: library)
        let recorded = try await library.storeDerivatives([
            DerivativeContent(
                assetLocalIdentifier: id, kind: .thumbnail, sourceSHA256: String(repeating: "0", count: 64),
                result: .success(picture("old")))
        ])
        #expect(recorded.isEmpty)
        #expect(try library.derivatives(ofAsset: id).isEmpty)
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: library.derivativesURL.path)
            .filter { $0.hasSuffix(".webp") }
        #expect(leftovers.isEmpty, "the file written for it is removed again")
        #expect(try library.derivativeSources(.missing, after: 0, limit: 10).sources.count == 1)
    }

    @Test("purging an asset removes its derivatives' rows and files; an orphan file is reported by verify", arguments: CatalogBackend.all)
    func purgeAndOrphans(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let id = try await store(TestFiles.distinctBytes(size: 3000), named: "a.jpg", in: folder, library: library)
        let source = try #require(try library.derivativeSource(ofAsset: id))
        try await library.storeDerivatives([
            DerivativeContent(
                assetLocalIdentifier: id, kind: .preview, sourceSHA256: source.sha256,
                result: .success(DerivativeContent.Picture(data: Data("p".utf8), mimeType: "image/jpeg", pixelWidth: 9, pixelHeight: 9)))
        ])
        let file = try #require(try library.derivatives(ofAsset: id).first?.file)
        #expect(file.relativePath.hasSuffix(".jpg"))
        let asset = try #require(Asset.fetchAssets(withLocalIdentifiers: [id], library: library).firstObject)
        try await library.performChanges { try AssetChangeRequest.deleteAssets([asset] as [Asset]) }
        #expect(FileManager.default.fileExists(atPath: file.fileURL.path), "kept while in Recently Deleted")
        try await library.performChanges { try AssetChangeRequest.purgeAssets([asset] as [Asset]) }
        #expect(!FileManager.default.fileExists(atPath: file.fileURL.path))
        #expect(try library.derivatives(ofAsset: id).isEmpty)

        // A file nobody records, older than ten minutes: an orphan.
        let orphan = library.derivativesURL.appendingPathComponent("ab/stray.webp")
        try FileManager.default.createDirectory(
            at: orphan.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: orphan)
        #expect(try library.verify().isClean, "a fresh file may be a derivative being stored")
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: orphan.path)
        #expect(try library.verify().issues.map(\.kind) == [.orphanDerivative])
    }
}
