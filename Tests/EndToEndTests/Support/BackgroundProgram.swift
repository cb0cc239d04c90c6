import Foundation
import TestFixtures

/// A loopback port no one listens on now (the kernel's choice for a socket bound to port 0), for a program a test
/// starts that cannot report the port it bound (nginx, smbd, Syncthing, Prometheus).
func freeLoopbackPort() async throws -> Int {
    let found = try await runProcess(
        URL(fileURLWithPath: "/usr/bin/python3"),
        ["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
    guard let port = Int(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw HarnessError("no free port: \(found.stderr)")
    }
    return port
}

/// A program started for a test, its output in a file; stopped by its PID (SIGTERM, then SIGKILL after 30 s).
final class BackgroundProgram: @unchecked Sendable {
    // @unchecked: set in init, then only queried and signalled.
    let process: Process
    let log: URL

    init(_ executable: String, _ arguments: [String], log: URL) throws {
        self.log = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    func stop() async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { await pause(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        // Never waited for here: Foundation's wait from a task's thread can hang. The test process reaps it at its end.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
