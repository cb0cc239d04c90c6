import Foundation
import TestFixtures
import Testing

/// The recipe examples/syncthing-phone run for real: two Syncthing instances on this machine (discovery, relays and NAT
/// off, fixed `127.0.0.1` addresses, each with a folder of its own), "phone" Send Only and "server" Receive Only, the
/// server's folder inside photodrop's inbox (the folder element of examples/syncthing-phone/server-folder.xml, its
/// path and device ids set here). photodrop files the photos that arrive, and the phone keeps every one of them.
@Suite(
    "recipe: a phone's folder through Syncthing (Send Only to Receive Only)", .serialized, .timeLimit(.minutes(3)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/syncthing"), "syncthing (apt-get install syncthing)"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl (apt-get install curl)"))
struct SyncthingRecipeTests {
    static let example = packageRootPath + "/examples/syncthing-phone/server-folder.xml"

    /// One Syncthing instance: its home, device id, ports and API key.
    struct Instance {
        let name: String
        let home: URL
        let id: String
        let listen: Int
        let gui: Int
        let apiKey: String
    }

    @Test("photos synced from the phone are filed into the album; the phone keeps them all")
    func phoneKeepsItsPhotos() async throws {
        try await run(twoWay: false)
    }

    /// The mistake the recipe warns about, shown: with the default two-way folders on both sides, photodrop's moves
    /// reach the phone as deletions. (Also the proof that the check above can see a loss.)
    @Test("with two-way folders instead, the phone loses the photos photodrop filed")
    func twoWayFoldersLosePhotos() async throws {
        try await run(twoWay: true)
    }

    func run(twoWay: Bool) async throws {
        let sandbox = try Sandbox("syncthing")
        let daemon = try WatchDaemon(sandbox)
        let phoneFolder = sandbox.root.appendingPathComponent("phone/DCIM/Camera")
        let serverFolder = sandbox.inbox.appendingPathComponent("Phone")
        try FileManager.default.createDirectory(at: phoneFolder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: serverFolder, withIntermediateDirectories: true)
        let photos = (1...4).map { "IMG_000\($0).JPG" }
        for (index, name) in photos.enumerated() {
            try Data(MediaFixtures.jpeg(seed: 40 + index)).write(to: phoneFolder.appendingPathComponent(name))
        }

        let phone = try await Self.instance("phone", in: sandbox)
        let server = try await Self.instance("server", in: sandbox)
        // The server's folder is the example's element, with this test's path and devices.
        var serverXML = try String(contentsOfFile: Self.example, encoding: .utf8)
        for (from, to) in [
            ("/srv/photodrop/Inbox/Phone", serverFolder.path), ("PHONE-DEVICE-ID", phone.id), ("SERVER-DEVICE-ID", server.id),
            ("fsWatcherDelayS=\"10\"", "fsWatcherDelayS=\"1\""),
        ] {
            #expect(serverXML.contains(from), "the example no longer has '\(from)'")
            serverXML = serverXML.replacingOccurrences(of: from, with: to)
        }
        if twoWay { serverXML = serverXML.replacingOccurrences(of: "type=\"receiveonly\"", with: "type=\"sendreceive\"") }
        let serverFolderXML = String(serverXML[serverXML.range(of: "<folder ")!.lowerBound...])
        let phoneFolderXML = """
            <folder id="phone-camera" label="Camera" path="\(phoneFolder.path)" type="\(twoWay ? "sendreceive" : "sendonly")" rescanIntervalS="3600" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="true" autoNormalize="true">
                <filesystemType>basic</filesystemType>
                <device id="\(phone.id)"></device>
                <device id="\(server.id)"></device>
            </folder>
            """
        try Self.writeConfig(phone, folder: phoneFolderXML, peer: server)
        try Self.writeConfig(server, folder: serverFolderXML, peer: phone)
        let phoneProcess = try Self.start(phone)
        let serverProcess = try Self.start(server)
        do {
            let logs = { String(phoneProcess.output.suffix(3000)) + "\n---\n" + String(serverProcess.output.suffix(3000)) }
            if twoWay {
                try await Self.checkLoss(photos: photos, phoneFolder: phoneFolder, sandbox: sandbox, logs: logs)
            } else {
                try await Self.check(
                    photos: photos, phoneFolder: phoneFolder, serverFolder: serverFolder, server: server, sandbox: sandbox,
                    logs: logs)
            }
        } catch {
            await phoneProcess.stop()
            await serverProcess.stop()
            throw error
        }
        await phoneProcess.stop()
        await serverProcess.stop()
        #expect(try await daemon.stop() == 0)
    }

    static func check(
        photos: [String], phoneFolder: URL, serverFolder: URL, server: Instance, sandbox: Sandbox,
        logs: () -> String
    ) async throws {
        // Synced, then filed by watch into the album named after the inbox folder.
        let stored = await eventuallyTrue(timeout: 90) {
            let listing = try? ProcessRunner.runBlocking(
                PhotodropBinary.url!, ["--config", sandbox.config.path, "assets", "--json"])
            return (listing?.stdout.split(separator: "\n").count ?? 0) == photos.count
        }
        #expect(stored, "the phone's photos were stored:\n\(logs())")
        let albums = try await sandbox.run(["albums", "--json"])
        #expect(albums.stdout.contains("\"title\":\"Phone\"") && albums.stdout.contains("\"count\":\(photos.count)"), "\(albums.stdout)")
        // The server's Syncthing sees the moves as local deletions of a Receive Only folder: it keeps them to itself.
        _ = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/curl"),
            ["-s", "-X", "POST", "-H", "X-API-Key: \(server.apiKey)", "http://127.0.0.1:\(server.gui)/rest/db/scan?folder=phone-camera"])
        let heldBack = await eventuallyTrue(timeout: 30) {
            let status = try? ProcessRunner.runBlocking(
                URL(fileURLWithPath: "/usr/bin/curl"),
                ["-s", "-H", "X-API-Key: \(server.apiKey)", "http://127.0.0.1:\(server.gui)/rest/db/status?folder=phone-camera"])
            guard let data = status?.stdout.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return false }
            return (object["receiveOnlyTotalItems"] as? Int ?? 0) >= photos.count
        }
        #expect(heldBack, "the server's folder holds the deletions back as its own local changes:\n\(logs())")
        // Given time to propagate anything it would, the phone still has every photo, byte for byte.
        try await Task.sleep(for: .seconds(5))
        for (index, name) in photos.enumerated() {
            let bytes = try? Data(contentsOf: phoneFolder.appendingPathComponent(name))
            #expect(bytes == Data(MediaFixtures.jpeg(seed: 40 + index)), "the phone lost \(name)")
        }
        // Nothing was downloaded again into the inbox (Receive Only does not revert local deletions by itself).
        let again = ((try? FileManager.default.contentsOfDirectory(atPath: serverFolder.path)) ?? []).filter { !$0.hasPrefix(".") }
        #expect(again.isEmpty, "downloaded again: \(again)")
        let rejected = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.rejected.path)) ?? []
        #expect(rejected.isEmpty, "rejected: \(rejected)")
    }

    static func checkLoss(photos: [String], phoneFolder: URL, sandbox: Sandbox, logs: () -> String) async throws {
        let stored = await eventuallyTrue(timeout: 90) {
            let listing = try? ProcessRunner.runBlocking(
                PhotodropBinary.url!, ["--config", sandbox.config.path, "assets", "--json"])
            return (listing?.stdout.split(separator: "\n").count ?? 0) == photos.count
        }
        #expect(stored, "the phone's photos were stored:\n\(logs())")
        let lost = await eventuallyTrue(timeout: 60) {
            photos.allSatisfy { !FileManager.default.fileExists(atPath: phoneFolder.appendingPathComponent($0).path) }
        }
        #expect(lost, "a two-way folder sends photodrop's moves to the phone as deletions:\n\(logs())")
    }

    /// Generates an instance's keys and learns its device id.
    static func instance(_ name: String, in sandbox: Sandbox) async throws -> Instance {
        let home = sandbox.root.appendingPathComponent("syncthing-\(name)")
        let generated = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/syncthing"),
            ["generate", "--home", home.path, "--no-default-folder", "--skip-port-probing"])
        #expect(generated.status == 0, "\(generated)")
        let id = try await runProcess(URL(fileURLWithPath: "/usr/bin/syncthing"), ["serve", "--home", home.path, "--device-id"])
        let deviceID = id.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deviceID.count == 63, "\(id)")
        return Instance(
            name: name, home: home, id: deviceID, listen: try await freeLoopbackPort(),
            gui: try await freeLoopbackPort(), apiKey: "photodrop-test-\(name)-\(UInt32.random(in: 0...UInt32.max))")
    }

    /// A whole config.xml: this instance, its peer at a fixed loopback address, the folder; no discovery, relays,
    /// NAT traversal, usage reporting, upgrades or browser.
    static func writeConfig(_ instance: Instance, folder: String, peer: Instance) throws {
        let xml = """
            <configuration version="36">
                \(folder)
                <device id="\(instance.id)" name="\(instance.name)" compression="metadata" introducer="false">
                    <address>dynamic</address>
                </device>
                <device id="\(peer.id)" name="\(peer.name)" compression="metadata" introducer="false">
                    <address>tcp://127.0.0.1:\(peer.listen)</address>
                </device>
                <gui enabled="true" tls="false" debugging="false">
                    <address>127.0.0.1:\(instance.gui)</address>
                    <apikey>\(instance.apiKey)</apikey>
                </gui>
                <options>
                    <listenAddress>tcp://127.0.0.1:\(instance.listen)</listenAddress>
                    <globalAnnounceEnabled>false</globalAnnounceEnabled>
                    <localAnnounceEnabled>false</localAnnounceEnabled>
                    <relaysEnabled>false</relaysEnabled>
                    <natEnabled>false</natEnabled>
                    <startBrowser>false</startBrowser>
                    <urAccepted>-1</urAccepted>
                    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                    <crashReportingEnabled>false</crashReportingEnabled>
                    <reconnectionIntervalS>1</reconnectionIntervalS>
                </options>
            </configuration>
            """
        try xml.write(to: instance.home.appendingPathComponent("config.xml"), atomically: true, encoding: .utf8)
    }

    static func start(_ instance: Instance) throws -> BackgroundProgram {
        try BackgroundProgram(
            "/usr/bin/syncthing",
            ["serve", "--home", instance.home.path, "--no-browser", "--no-restart", "--logfile=-"],
            log: instance.home.appendingPathComponent("syncthing.log"))
    }
}
