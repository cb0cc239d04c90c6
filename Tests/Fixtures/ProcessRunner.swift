import Foundation

/// What a finished program printed, and how it ended.
public struct ProcessOutput: Sendable, CustomStringConvertible {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    public var description: String { "exit \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }

    /// stdout's lines.
    public var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// A program that did not finish in time (it was killed).
public struct ProcessTimeout: Error, CustomStringConvertible {
    public var description: String
}

/// Runs programs to completion for tests: stdout and stderr both go to files the kernel fills at the same time, so a
/// program that writes much to one while the other is not being read can never block (two pipes read one after the
/// other deadlock past 64 KiB). Killed (`SIGKILL`) after `timeout`.
public enum ProcessRunner {
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval = 120
    ) async throws -> ProcessOutput {
        let started = try Started(executable, arguments, in: directory, environment: environment)
        let deadline = Date().addingTimeInterval(timeout)
        while started.process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return try started.finish(timeout: timeout)
    }

    /// ``run(_:_:in:environment:timeout:)`` for synchronous code: blocks the calling thread, polling every 5 ms.
    public static func runBlocking(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval = 120
    ) throws -> ProcessOutput {
        let started = try Started(executable, arguments, in: directory, environment: environment)
        let deadline = Date().addingTimeInterval(timeout)
        while started.process.isRunning && Date() < deadline { usleep(5_000) }
        return try started.finish(timeout: timeout)
    }

    /// A started program whose stdout and stderr go to files in a scratch folder.
    private final class Started {
        let process = Process()
        let scratch: URL
        let outURL: URL
        let errURL: URL

        init(_ executable: URL, _ arguments: [String], in directory: URL?, environment: [String: String]?) throws {
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
                "photodrop-run-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            outURL = scratch.appendingPathComponent("stdout")
            errURL = scratch.appendingPathComponent("stderr")
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            process.executableURL = executable
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = directory }
            if let environment {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: outURL)
            process.standardError = try FileHandle(forWritingTo: errURL)
            try process.run()
        }

        deinit { try? FileManager.default.removeItem(at: scratch) }

        /// Kills the program if it still runs (and throws), else collects what it printed.
        func finish(timeout: TimeInterval) throws -> ProcessOutput {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let name = process.executableURL?.lastPathComponent ?? "?"
                throw ProcessTimeout(
                    description:
                        "\(name) \((process.arguments ?? []).joined(separator: " ")) timed out after \(timeout) s")
            }
            process.waitUntilExit()
            return ProcessOutput(
                status: process.terminationStatus,
                stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
        }
    }
}

/// The package's root folder, from this file's path (`Tests/Fixtures/ProcessRunner.swift`).
public let packageRootPath: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
