import Foundation
import PhotoCatalog
import TestFixtures
import Testing

@Suite("Capture dates with their zone: assets and show, text and JSON", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct CaptureDateCommandTests {
    @Test("local time and offset in JSON and text, floating times without one, listed in the order of the instants")
    func zonesAndOrder() async throws {
        let sandbox = try Sandbox("zones")
        let drops: [(String, [UInt8])] = [
            ("tokyo.jpg", SyntheticJPEG.bytes(seed: 1, taken: "2023:06:01 09:00:00", offset: "+09:00")),
            ("new-york.jpg", SyntheticJPEG.bytes(seed: 2, taken: "2023:05:31 21:00:00", offset: "-04:00")),
            ("no-zone.jpg", SyntheticJPEG.bytes(seed: 3, taken: "2023:06:01 00:30:00")),
            ("IMG_20230601_001500.jpg", SyntheticJPEG.bytes(seed: 4)),
            ("edited.jpg", SyntheticJPEG.bytes(seed: 5, xmp: "photoshop:DateCreated=\"2023-06-01T08:00:00+09:00\"")),
        ]
        for (name, bytes) in drops { try sandbox.write("drop/Trip/\(name)", bytes) }
        let imported = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path])
        #expect(imported.status == 0, "\(imported)")

        let items = try await sandbox.run(["assets", "--json"]).jsonLines()
        #expect(
            items.compactMap { $0["originalFilename"] as? String }
                == ["edited.jpg", "tokyo.jpg", "IMG_20230601_001500.jpg", "no-zone.jpg", "new-york.jpg"],
            "sorted by the instant, floating times as if UTC")
        let byName = Dictionary(uniqueKeysWithValues: items.map { ($0["originalFilename"] as? String ?? "", $0) })
        func fields(_ name: String) -> [String?] {
            let item = byName[name]
            return ["creationDate", "localCreationDate", "timeZoneOffset", "creationDateSource"].map {
                item?[$0] as? String
            }
        }
        #expect(fields("tokyo.jpg") == ["2023-06-01T00:00:00.000Z", "2023-06-01T09:00:00+09:00", "+09:00", "exif"])
        #expect(
            fields("new-york.jpg") == ["2023-06-01T01:00:00.000Z", "2023-05-31T21:00:00-04:00", "-04:00", "exif"])
        #expect(fields("no-zone.jpg") == ["2023-06-01T00:30:00.000Z", "2023-06-01T00:30:00", nil, "exif"])
        #expect(byName["no-zone.jpg"]?["timeZoneOffset"] is NSNull, "null, not absent")
        #expect(
            fields("IMG_20230601_001500.jpg") == ["2023-06-01T00:15:00.000Z", "2023-06-01T00:15:00", nil, "fileName"])
        #expect(fields("edited.jpg") == ["2023-05-31T23:00:00.000Z", "2023-06-01T08:00:00+09:00", "+09:00", "xmp"])

        let table = try await sandbox.run(["assets"])
        #expect(table.stdout.contains("TAKEN (LOCAL TIME)"), "\(table)")
        #expect(table.stdout.contains("2023-05-31 21:00 -04:00"), "\(table)")
        #expect(table.stdout.contains("2023-06-01 00:30 local"), "\(table)")

        let tokyo = try #require(byName["tokyo.jpg"]?["id"] as? String)
        let show = try await sandbox.run(["show", tokyo])
        #expect(
            show.stdout.contains("2023-06-01 09:00:00 +09:00 (2023-06-01 00:00:00 UTC, from exif)"), "\(show)")
        let floating = try #require(byName["no-zone.jpg"]?["id"] as? String)
        let showFloating = try await sandbox.run(["show", floating])
        #expect(showFloating.stdout.contains("2023-06-01 00:30:00 local time (zone unknown) (from exif)"), "\(showFloating)")
    }

    @Test("watch re-reads the zones of assets stored before zones were kept, in the background, once")
    func daemonBackfill() async throws {
        let sandbox = try Sandbox("zone-backfill")
        try sandbox.write("drop/Trip/tokyo.jpg", SyntheticJPEG.bytes(seed: 1, taken: "2023:06:01 09:00:00", offset: "+09:00"))
        try sandbox.write("drop/Trip/local.jpg", SyntheticJPEG.bytes(seed: 2, taken: "2023:06:01 09:00:00"))
        #expect(try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path]).status == 0)
        // What the v6 migration leaves on a library made before it: zones unknown, each asset awaiting its re-read.
        do {
            let database = try Database(
                path: sandbox.library.appendingPathComponent("library.sqlite").path, mode: .readWrite(create: false))
            try database.execute(
                """
                UPDATE assets SET creation_time_zone_offset = NULL, creation_date_is_floating = 0,
                    creation_zone_pending = 1
                """)
        }
        let before = try await sandbox.run(["assets", "--json"]).jsonLines()
        #expect(before.allSatisfy { $0["timeZoneOffset"] is NSNull && ($0["localCreationDate"] as? String)?.hasSuffix("-00:00") == true })

        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        #expect(await eventually(timeout: 30) { daemon.log.contains("re-read capture time zones") }, "\(daemon.log)")
        _ = try await daemon.stop()
        let after = Dictionary(
            uniqueKeysWithValues: try await sandbox.run(["assets", "--json"]).jsonLines().map {
                ($0["originalFilename"] as? String ?? "", $0)
            })
        #expect(after["tokyo.jpg"]?["localCreationDate"] as? String == "2023-06-01T09:00:00+09:00")
        #expect(after["local.jpg"]?["localCreationDate"] as? String == "2023-06-01T09:00:00")
        #expect(after["local.jpg"]?["timeZoneOffset"] is NSNull)

        // Once: a second start finds nothing to re-read.
        let again = try WatchDaemon(sandbox)
        try await again.waitUntilStarted()
        try await Task.sleep(for: .milliseconds(500))
        _ = try await again.stop()
        #expect(!again.log.contains("re-read capture time zones"), "\(again.log)")
    }
}
