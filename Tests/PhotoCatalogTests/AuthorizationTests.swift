import Foundation
import PhotodropSystem
import TestFixtures
import Testing

@testable import PhotoCatalog

/// What this machine lets the tests do to produce denied and read-only libraries honestly.
enum Privileges {
    static var isRoot: Bool { geteuid() == 0 }

    /// Whether a private mount namespace with a tmpfs can be made (`unshare -m`, needs CAP_SYS_ADMIN).
    static let canMountPrivately: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        guard
            let output = try? Helper.run(
                URL(fileURLWithPath: "/usr/bin/unshare"),
                ["-m", "--propagation", "private", "/bin/sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt && echo ok"])
        else { return false }
        return output.status == 0 && output.stdout.contains("ok")
    }()
}

@Suite("Authorization", CatalogGate.one)
struct AuthorizationTests {
    @Test("a missing library is notDetermined, is not created by asking, and requestAuthorization creates it")
    func missing() async throws {
        let folder = try TemporaryDirectory()
        let library = folder.library("Not yet/Library")
        #expect(library.authorizationStatus(for: .readWrite) == .notDetermined)
        #expect(library.authorizationStatus(for: .addOnly) == .notDetermined)
        #expect(!FileManager.default.fileExists(atPath: library.url.path), "asking does no I/O beyond looking")
        #expect(await library.requestAuthorization(for: .readWrite) == .authorized)
        #expect(FileManager.default.fileExists(atPath: library.databasePath))
        #expect(library.authorizationStatus(for: .readWrite) == .authorized)
        // The first write of another library object creates its library too (asked lazily, at the first write).
        let lazy = folder.library("Lazy")
        try await lazy.performChanges {}
        #expect(lazy.authorizationStatus(for: .readWrite) == .authorized)
    }

    @Test(
        "an unwritable library is denied: reading works, writing fails with accessUserDenied",
        .requires(Helper.executable != nil, "catalog-history must be built next to the test bundle"))
    func unwritable() async throws {
        let folder = try TemporaryDirectory()
        let library = folder.library()
        let file = try folder.write(TestFiles.distinctBytes(size: 40), to: "d.jpg")
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Visible")
        }
        if Privileges.isRoot {
            // Root may write anywhere that is not read-only, so permission bits cannot deny it. Ask as another user
            // instead: the helper drops to uid 65534 (nobody) before it opens the library, which is then opened up
            // to mode 0755/0644 (a library is 0750/0640 by default: not even readable for nobody) — readable, not
            // writable, for nobody.
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: library.url.path)
            for name in try FileManager.default.contentsOfDirectory(atPath: library.url.path) {
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o755], ofItemAtPath: library.url.appendingPathComponent(name).path)
            }
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o644], ofItemAtPath: library.databasePath)
            let output = try Helper.run(["auth", "--library", library.url.path, "--uid", "65534", "--write"])
            #expect(output.status == 0, "\(output.stderr)")
            let result = try #require(output.objects.first)
            #expect(result["uid"] as? Int == 65534)
            #expect(result["status"] as? String == "denied")
            #expect(result["read"] as? Int == 1, "reading a library one may not write still works: \(result)")
            #expect(result["write"] as? String == "accessUserDenied")
            #expect((result["writeMessage"] as? String)?.contains("may not write") == true)
            #expect(result["requested"] as? String == "denied")
        } else {
            let restore = {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: library.url.path)
            }
            defer { restore() }
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: library.url.path)
            let fresh = PhotoLibrary(url: library.url)
            #expect(fresh.authorizationStatus(for: .readWrite) == .denied)
            await #expect { try await fresh.performChanges {} } throws: {
                ($0 as? PhotosError)?.code == .accessUserDenied
            }
        }
        // The library is untouched: one album, no "Denied?" album.
        #expect(
            try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).map(\.title) == [
                "Visible"
            ])
    }

    @Test(
        "a library on a read-only filesystem is restricted: reading works, writing fails with accessRestricted",
        .requires(
            Helper.executable != nil && Privileges.canMountPrivately,
            "needs a private mount namespace (unshare -m, CAP_SYS_ADMIN) to mount a read-only tmpfs"))
    func readOnlyFilesystem() throws {
        let folder = try TemporaryDirectory()
        let mountPoint = folder.appending("ro")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let sources = try TemporaryDirectory()
        _ = try sources.makeFiles(3)
        let helper = try #require(Helper.executable).path
        // In a private mount namespace (so nothing leaks into the test's own), mount a tmpfs, make a library in it,
        // remount it read-only and ask. The mount disappears with the namespace.
        let script = """
            set -e
            mount -t tmpfs -o size=16m tmpfs '\(mountPoint.path)'
            '\(helper)' import --library '\(mountPoint.path)/Library' --source '\(sources.path)' --batch 10 >/dev/null
            mount -o remount,ro '\(mountPoint.path)'
            '\(helper)' auth --library '\(mountPoint.path)/Library' --write
            """
        let output = try Helper.run(
            URL(fileURLWithPath: "/usr/bin/unshare"), ["-m", "--propagation", "private", "/bin/sh", "-c", script])
        #expect(output.status == 0, "\(output.stderr)")
        let result = try #require(output.objects.first, "no result: \(output.stdout) \(output.stderr)")
        #expect(result["status"] as? String == "restricted")
        #expect(result["read"] as? Int == 0 && result["assets"] as? Int == 3, "the library can be read: \(result)")
        #expect(result["write"] as? String == "accessRestricted")
        #expect(result["requested"] as? String == "restricted")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: mountPoint.path).isEmpty, "the mount stayed private")
    }

    @Test("a file where the library folder should be is denied, with a clear error at the first write")
    func notAFolder() async throws {
        let folder = try TemporaryDirectory()
        let blocker = try folder.write(Data("x".utf8), to: "Library")
        let library = PhotoLibrary(url: blocker)
        #expect(library.authorizationStatus(for: .readWrite) == .denied)
        await #expect { try await library.performChanges {} } throws: {
            ($0 as? PhotosError)?.code == .accessUserDenied
        }
    }
}
