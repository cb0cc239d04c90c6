import Foundation
import PhotoCatalog
@testable import PhotodropSystem
import Synchronization
import TestFixtures
import Testing

/// The data-loss issue's case 3: an album folder exchanged for a symbolic link (`renameat2(RENAME_EXCHANGE)`, which
/// anyone who may write the inbox can do) between photodrop's look at a file and its claim made photodrop move a file
/// from outside the inbox into the library. Here a racer flips the folder and a link to a folder of "secrets" as fast
/// as it can while the daemon takes 150 drops; not one secret may move, and every drop must be stored.
///
/// Run three ways: with openat2, and with openat2 refused by a real seccomp filter (EPERM, as container runtimes do;
/// ENOSYS, as kernels before 5.6), where photodrop resolves names component by component with O_NOFOLLOW.
@Suite("watch: a folder swapped for a link never pulls a file from outside the inbox", .serialized,
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct SymlinkRaceTests {
    @Test("150 drops while the album folder and a link to outside swap places", arguments: ["openat2", "EPERM", "ENOSYS"])
    func swappedAlbumFolder(_ mode: String) async throws {
        let launcher: Launcher?
        if mode == "openat2" {
            launcher = nil
        } else {
            let filtered = try #require(Launcher.withoutOpenat2(mode), "seccomp-deny is built next to photodrop")
            launcher = filtered
        }
        let sandbox = try Sandbox("race", settings: ["settleMilliseconds": 0])
        let outside = sandbox.root.appendingPathComponent("Outside")
        let secrets = try TinyJPEG.write(count: 150, startingAt: 10_000, into: outside)
        let secretContents = Set(try secrets.map { try sha256(of: $0) })
        let album = try sandbox.inboxAlbum("A")
        let link = sandbox.inbox.appendingPathComponent("S")
        #expect(symlink(outside.path, link.path) == 0)

        let daemon = try WatchDaemon(sandbox, launcher: launcher)
        try await daemon.waitUntilStarted()
        let drops = try TinyJPEG.write(count: 150, into: sandbox.staging("drops"))
        let dropContents = Set(try drops.map { try sha256(of: $0) })

        // The racer swaps "A" (the real folder) and "S" (the link) again and again while the drops arrive.
        let stop = Atomic<Bool>(false)
        let swaps = Atomic<Int>(0)
        let racer = Thread {
            while !stop.load(ordering: .relaxed) {
                if renameat2(AT_FDCWD, album.path, AT_FDCWD, link.path, RENAME_EXCHANGE) == 0 {
                    swaps.add(1, ordering: .relaxed)
                }
            }
        }
        racer.start()
        for (index, drop) in drops.enumerated() {
            // Into whichever of the two is the real folder right now (through the path, as an uploader would).
            _ = rename(drop.path, album.appendingPathComponent(drop.lastPathComponent).path)
            if index % 10 == 0 { await pause(20_000) }
        }
        await pause(2_000_000)
        stop.store(true, ordering: .relaxed)
        while !racer.isFinished { await pause(1_000) }
        #expect(swaps.load(ordering: .relaxed) > 1000, "the racer swapped the folders")

        // Leave the real folder under its own name and the link gone, so that everything left is found again.
        var info = stat()
        if lstat(album.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK {
            #expect(renameat2(AT_FDCWD, album.path, AT_FDCWD, link.path, RENAME_EXCHANGE) == 0)
        }
        #expect(unlink(link.path) == 0)
        // Drops whose rename went into the link landed in Outside: they were never in the inbox. Put them in now.
        for drop in drops {
            let strayed = outside.appendingPathComponent(drop.lastPathComponent)
            if FileManager.default.fileExists(atPath: strayed.path),
                try sha256(of: strayed) != sha256(of: secrets[0]), dropContents.contains(try sha256(of: strayed))
            {
                _ = rename(strayed.path, album.appendingPathComponent("late-" + drop.lastPathComponent).path)
            }
        }
        let drained = await eventually(timeout: 60) { sandbox.inboxFiles.isEmpty && sandbox.stagedFiles.isEmpty }
        #expect(try await daemon.stop() == 0)
        #expect(drained, "left in the inbox: \(sandbox.inboxFiles.prefix(5))\n\(daemon.log.suffix(2000))")

        // Not one secret moved or changed, and none is in the library or in Rejected/.
        for secret in secrets {
            #expect(FileManager.default.fileExists(atPath: secret.path), "\(secret.lastPathComponent) was taken")
        }
        let remaining = Set(try secrets.filter { FileManager.default.fileExists(atPath: $0.path) }.map { try sha256(of: $0) })
        #expect(remaining == secretContents)
        let stored = Set(try LibraryCheck(sandbox).storedContents().keys)
        #expect(stored.isDisjoint(with: secretContents), "a file from outside the inbox is in the library")
        #expect(stored == dropContents, "every drop is stored: \(stored.count) of \(dropContents.count)")
        #expect(sandbox.files(under: sandbox.rejected).isEmpty)
        // The daemon says how it resolved names: the filter really took openat2 away.
        let started = daemon.logLines.first { ($0["message"] as? String) == "photodrop watch started" }
        #expect(started?["resolution"] as? String == (mode == "openat2" ? "openat2" : "componentWalk"), "\(started ?? [:])")
    }
}
