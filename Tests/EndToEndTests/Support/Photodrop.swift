import Foundation
import PhotodropSystem
import TestFixtures
import Testing

/// The built `photodrop` binary, next to the test bundle in the build folder (`swift build --build-tests` builds it,
/// because the test target depends on it).
///
/// `PHOTODROP_TEST_BINARY=/path/to/photodrop` runs the end-to-end tests against another build instead (for example
/// the previous release, to see a new test fail there).
enum PhotodropBinary {
    private static let buildFolders: [URL] = {
        let buildFolder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        return [buildFolder, buildFolder.deletingLastPathComponent()]
    }()

    static let url: URL? = {
        if let override = ProcessInfo.processInfo.environment["PHOTODROP_TEST_BINARY"] {
            return URL(fileURLWithPath: override)
        }
        for candidate in buildFolders {
            let url = candidate.appendingPathComponent("photodrop")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }()

    static var isBuilt: Bool { url != nil }

    /// Another executable of the package built next to `photodrop` (`seccomp-deny`), or nil.
    static func sibling(_ name: String) -> URL? {
        buildFolders.map { $0.appendingPathComponent(name) }.first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }
}

/// A program that starts `photodrop` in a changed world: under a seccomp filter (`seccomp-deny EPERM --`), as
/// another user (`setpriv --reuid=… --`). Its arguments come before photodrop's path.
struct Launcher: Sendable {
    var executable: URL
    var arguments: [String]

    /// openat2 fails with `errno` (EPERM or ENOSYS) for photodrop, as under some container runtimes.
    static func withoutOpenat2(_ errno: String) -> Launcher? {
        PhotodropBinary.sibling("seccomp-deny").map { Launcher(executable: $0, arguments: [errno, "--"]) }
    }

    /// photodrop runs as `uid`/`gid` with no supplementary groups (needs root and setpriv).
    static func asUser(_ uid: uid_t, _ gid: gid_t) -> Launcher {
        Launcher(
            executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
            arguments: ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--"])
    }
}

/// The package root.
let packageRoot: URL = URL(fileURLWithPath: packageRootPath)

/// The shared real-media corpus (`../shared/corpus/dev` beside the package), or nil when it is absent.
let corpusFolder: URL? = {
    let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/dev")
    return FileManager.default.fileExists(atPath: url.appendingPathComponent("EXPECTED.tsv").path) ? url : nil
}()

/// What a finished run of the binary printed and how it ended.
struct RunResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var description: String { "exit \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }

    /// stdout as JSON lines (one object per non-empty line).
    func jsonLines() throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let dictionary = object as? [String: Any] else { throw HarnessError("not a JSON object: \(line)") }
            return dictionary
        }
    }

    /// stdout as one JSON object.
    func jsonObject() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        guard let dictionary = object as? [String: Any] else { throw HarnessError("not a JSON object: \(stdout)") }
        return dictionary
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A temporary photodrop world: `Inbox/`, `Library/`, `Rejected/` and a `config.json` that points at them.
/// Removed when the test lets go of it.
final class Sandbox: @unchecked Sendable {
    // @unchecked: all stored properties are immutable after init.
    let root: URL
    var inbox: URL { root.appendingPathComponent("Inbox") }
    var library: URL { root.appendingPathComponent("Library") }
    var rejected: URL { root.appendingPathComponent("Rejected") }
    var config: URL { root.appendingPathComponent("config.json") }

    /// Creates the folders and writes config.json with `settings` merged over test-friendly defaults
    /// (settle 200 ms, JSON logs at debug level so tests can follow outcomes).
    init(_ label: String = "e2e", settings: [String: Any] = [:]) throws {
        let base = FileManager.default.temporaryDirectory.path
        var template = Array("\(base)/photodrop-\(label)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HarnessError("mkdtemp failed: errno \(errno)")
        }
        root = URL(fileURLWithPath: String(cString: made))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Inbox"), withIntermediateDirectories: true)
        var config: [String: Any] = [
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected",
            "settleMilliseconds": 200, "log": ["format": "json", "level": "debug"],
        ]
        config.merge(settings) { _, new in new }
        try writeConfig(config)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    func writeConfig(_ object: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: config)
    }

    /// `photodrop --config <sandbox>/config.json ARGS…`, run to completion (killed after `timeout`).
    @discardableResult
    func run(
        _ arguments: [String], timeout: TimeInterval = 120, environment: [String: String]? = nil,
        launcher: Launcher? = nil
    ) async throws -> RunResult {
        try await runPhotodrop(
            ["--config", config.path] + arguments, in: root, timeout: timeout, environment: environment,
            launcher: launcher)
    }

    /// Writes `bytes` to `relativePath` below the sandbox root, creating folders.
    @discardableResult
    func write(_ relativePath: String, _ bytes: [UInt8]) throws -> URL {
        let url = root.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return url
    }

    /// Regular files below `folder` (relative paths, sorted), dot-entries skipped.
    func files(under folder: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var result: [String] = []
        while let next = enumerator.nextObject() as? String {
            let name = (next as NSString).lastPathComponent
            if name.hasPrefix(".") {
                if (enumerator.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory {
                    enumerator.skipDescendants()
                }
                continue
            }
            if (enumerator.fileAttributes?[.type] as? FileAttributeType) == .typeRegular { result.append(next) }
        }
        return result.sorted()
    }
}

/// Runs the photodrop binary with `arguments` in `directory`; output goes through files, so a chatty child can
/// never block on a full pipe.
func runPhotodrop(
    _ arguments: [String], in directory: URL, timeout: TimeInterval = 120, environment: [String: String]? = nil,
    launcher: Launcher? = nil
) async throws -> RunResult {
    guard let binary = PhotodropBinary.url else { throw HarnessError("the photodrop binary is not built") }
    if let launcher {
        return try await runProcess(
            launcher.executable, launcher.arguments + [binary.path] + arguments, in: directory, timeout: timeout,
            environment: environment)
    }
    return try await runProcess(binary, arguments, in: directory, timeout: timeout, environment: environment)
}

/// Runs any program to completion, killing it after `timeout`.
func runProcess(
    _ executable: URL, _ arguments: [String], in directory: URL? = nil, timeout: TimeInterval = 120,
    environment: [String: String]? = nil
) async throws -> RunResult {
    let output = try await ProcessRunner.run(
        executable, arguments, in: directory, environment: environment, timeout: timeout)
    return RunResult(status: output.status, stdout: output.stdout, stderr: output.stderr)
}

/// A `photodrop` command running in the background (`watch`, `events --follow` …): stdout and stderr go to files
/// the test can poll; it is stopped with a signal, and killed if the test lets go of it while it still runs.
class BackgroundPhotodrop: @unchecked Sendable {
    // @unchecked: `process` is started in init and then only queried/signalled, which Process allows from any
    // thread; the URLs are immutable.
    let process: Process
    let stdoutURL: URL
    let stderrURL: URL

    init(
        _ sandbox: Sandbox, _ arguments: [String], environment: [String: String]? = nil, launcher: Launcher? = nil
    ) throws {
        guard let binary = PhotodropBinary.url else { throw HarnessError("the photodrop binary is not built") }
        let stamp = UUID().uuidString
        stdoutURL = sandbox.root.appendingPathComponent("background-\(stamp).out")
        stderrURL = sandbox.root.appendingPathComponent("background-\(stamp).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process = Process()
        if let launcher {
            process.executableURL = launcher.executable
            process.arguments = launcher.arguments + [binary.path, "--config", sandbox.config.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = ["--config", sandbox.config.path] + arguments
        }
        process.currentDirectoryURL = sandbox.root
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// When the process last wrote to stdout (the file's modification time): when a line arrived, whenever the test
    /// gets round to looking (a test process busy with other tests may look seconds later).
    var stdoutModified: Date? {
        var status = stat()
        guard stat(stdoutURL.path, &status) == 0 else { return nil }
        return Date(
            timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec) + TimeInterval(status.st_mtim.tv_nsec) / 1e9)
    }

    /// Complete stdout lines parsed as JSON objects.
    var jsonLines: [[String: Any]] { Self.jsonObjects(in: stdout) }

    static func jsonObjects(in text: String) -> [[String: Any]] {
        text.split(separator: "\n", omittingEmptySubsequences: true).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// Sends `signal` and waits for the exit; returns the exit status (or throws after `timeout`).
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 60) async throws -> Int32 {
        kill(process.processIdentifier, signal)
        return try await waitForExit(afterSignal: signal, timeout: timeout)
    }

    /// Waits for the exit of a process that was sent `signal`; returns the exit status (or kills it and throws after
    /// `timeout`).
    @discardableResult
    func waitForExit(afterSignal signal: Int32, timeout: TimeInterval = 60) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { await pause(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw HarnessError(
                "photodrop \(process.arguments ?? []) did not exit within \(timeout) s after signal \(signal)\n\(stderr)")
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// `kill -9`, and wait until the process is gone.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// A `photodrop watch` child process; its log is stderr.
final class WatchDaemon: BackgroundPhotodrop, @unchecked Sendable {
    init(
        _ sandbox: Sandbox, extraArguments: [String] = [], environment: [String: String]? = nil,
        launcher: Launcher? = nil
    ) throws {
        try super.init(sandbox, ["watch"] + extraArguments, environment: environment, launcher: launcher)
    }

    var logURL: URL { stderrURL }
    var log: String { stderr }

    /// The log's JSON lines (lines that do not parse are skipped).
    var logLines: [[String: Any]] { Self.jsonObjects(in: log) }
}


/// Sleeps without holding a cooperative thread.
func pause(_ microseconds: UInt32) async {
    try? await Task.sleep(for: .microseconds(Int(microseconds)))
}
