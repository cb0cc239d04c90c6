import Foundation
import TestFixtures
import Testing

/// The recipe examples/samba-drop-share run for real: Samba's smbd with the example's `[photos]` share (its path the
/// sandbox's inbox; its user and group this test's own, since the test does not create system accounts), on a private
/// port with its own state folders, and `photodrop watch` with the example's config.json. Files put with `smbclient`,
/// as a desktop would, are filed into their album; the desktop litter the share vetoes never reaches the inbox.
@Suite(
    "recipe: a Samba drop share, driven with smbclient", .serialized, .timeLimit(.minutes(3)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/sbin/smbd"), "smbd (apt-get install samba)"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/smbclient"), "smbclient (apt-get install smbclient)"))
struct SambaRecipeTests {
    static let example = packageRootPath + "/examples/samba-drop-share"

    @Test("smbclient puts photos into the share; watch files them into albums; vetoed litter never arrives")
    func dropShare() async throws {
        try skipUnless(getuid() == 0, "smbd runs as root (CI does)")
        // photodrop's side: the example's settings, with this sandbox's places.
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.example + "/config.json"))
        var settings = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["library", "inbox", "rejected"] { settings.removeValue(forKey: key) }
        settings["log"] = ["format": "json", "level": "debug"]
        let sandbox = try Sandbox("samba", settings: settings)
        let daemon = try WatchDaemon(sandbox)

        // Samba's side: a private server with the example's share section.
        let folder = sandbox.root.appendingPathComponent("samba")
        for sub in ["run", "lock", "state", "cache", "private", "ncalrpc"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let group = String(cString: getgrgid(getgid()).pointee.gr_name)
        var share = try String(contentsOfFile: Self.example + "/smb.conf", encoding: .utf8)
        for (from, to) in [
            ("path = /srv/photodrop/Inbox", "path = \(sandbox.inbox.path)"),
            ("valid users = @photodrop-upload", "valid users = \(user)"),
            ("force group = photodrop-upload", "force group = \(group)"),
        ] {
            #expect(share.contains(from), "the example no longer has '\(from)'")
            share = share.replacingOccurrences(of: from, with: to)
        }
        let port = try await freeLoopbackPort()
        let d = folder.path
        let conf = """
            [global]
               workgroup = PHOTODROPTEST
               server role = standalone server
               smb ports = \(port)
               interfaces = lo
               bind interfaces only = yes
               pid directory = \(d)/run
               lock directory = \(d)/lock
               state directory = \(d)/state
               cache directory = \(d)/cache
               private dir = \(d)/private
               ncalrpc dir = \(d)/ncalrpc
               log file = \(d)/log.smbd
               passdb backend = tdbsam:\(d)/private/passdb.tdb
               load printers = no
               printcap name = /dev/null
               disable spoolss = yes
               server min protocol = SMB2

            \(share)
            """
        let confPath = folder.appendingPathComponent("smb.conf").path
        try conf.write(toFile: confPath, atomically: true, encoding: .utf8)
        let password = "drop-share-\(UInt32.random(in: 0...UInt32.max))"
        let added = try await runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "printf '%s\\n%s\\n' \"$1\" \"$1\" | smbpasswd -c \"$2\" -s -a \"$3\"", "sh", password, confPath, user])
        #expect(added.status == 0, "smbpasswd: \(added)")
        let smbd = try BackgroundProgram(
            "/usr/sbin/smbd", ["--foreground", "--no-process-group", "--debug-stdout", "--configfile=\(confPath)"],
            log: folder.appendingPathComponent("smbd.out"))
        do {
            try await Self.drop(port: port, user: user, password: password, sandbox: sandbox, smbd: smbd)
        } catch {
            await smbd.stop()
            throw error
        }
        await smbd.stop()
        #expect(try await daemon.stop() == 0)
    }

    static func drop(port: Int, user: String, password: String, sandbox: Sandbox, smbd: BackgroundProgram) async throws {
        func smbclient(_ commands: String) async throws -> RunResult {
            try await runProcess(
                URL(fileURLWithPath: "/usr/bin/smbclient"),
                ["//127.0.0.1/photos", "-p", String(port), "-U", "\(user)%\(password)", "-m", "SMB3", "-c", commands],
                in: sandbox.root)
        }
        #expect(
            await eventuallyTrue(timeout: 30) {
                let listing = try? ProcessRunner.runBlocking(
                    URL(fileURLWithPath: "/usr/bin/smbclient"),
                    ["//127.0.0.1/photos", "-p", String(port), "-U", "\(user)%\(password)", "-m", "SMB3", "-c", "ls"])
                return listing?.status == 0
            }, "smbd answers: \(smbd.output.suffix(2000))")

        // A desktop's upload: a folder per album, photos, and the litter it leaves beside them.
        let local = sandbox.root.appendingPathComponent("desktop")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        for index in 1...3 { try Data(MediaFixtures.jpeg(seed: index)).write(to: local.appendingPathComponent("IMG_000\(index).JPG")) }
        try Data("thumbnail cache".utf8).write(to: local.appendingPathComponent("Thumbs.db"))
        try Data([0, 5, 22, 7]).write(to: local.appendingPathComponent("._IMG_0001.JPG"))
        let put = try await smbclient(
            "mkdir Trip; cd Trip; lcd desktop; put IMG_0001.JPG; put IMG_0002.JPG; put IMG_0003.JPG; put Thumbs.db; put ._IMG_0001.JPG")
        #expect((put.stdout + put.stderr).contains("putting file IMG_0003.JPG"), "\(put)")
        #expect(
            (put.stdout + put.stderr).contains(#"NT_STATUS_OBJECT_NAME_NOT_FOUND opening remote file \Trip\Thumbs.db"#),
            "the share vetoes Thumbs.db: \(put)")

        // Filed into the album Trip; the share's folder empties again.
        #expect(
            await eventuallyTrue(timeout: 60) {
                let listing = try? ProcessRunner.runBlocking(
                    PhotodropBinary.url!, ["--config", sandbox.config.path, "assets", "--json"])
                return (listing?.stdout.split(separator: "\n").count ?? 0) == 3
            }, "the three photos were stored")
        let albums = try await sandbox.run(["albums", "--json"])
        #expect(albums.stdout.contains("\"title\":\"Trip\"") && albums.stdout.contains("\"count\":3"), "\(albums.stdout)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.inbox.appendingPathComponent("Trip").path)) ?? []
        #expect(left.isEmpty, "left in the share: \(left)")
        // The litter was vetoed by the share: it never reached the inbox, and nothing was rejected.
        let rejected = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.rejected.path)) ?? []
        #expect(rejected.isEmpty, "rejected: \(rejected)")
        let listing = try await smbclient("cd Trip; ls")
        #expect(!listing.stdout.contains("Thumbs.db") && !listing.stdout.contains("._IMG"), "\(listing.stdout)")
    }
}
