import Foundation
import PhotodropSystem

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
///
/// Started with `posix_spawn` and reaped with `waitpid` here, not through Foundation's `Process`: `Process` learns
/// that a child ended from a handler that runs on the same few threads as Swift's concurrency, so a test that waits
/// for a program on one of them (a helper called from an `async` test) could wait for ever once every such thread
/// waits (two cores: two threads), with the children left as zombies.
public enum ProcessRunner {
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval = 120
    ) async throws -> ProcessOutput {
        let started = try Started(executable, arguments, in: directory, environment: environment)
        let deadline = Date().addingTimeInterval(timeout)
        while !started.hasEnded() && Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return try started.finish(timeout: timeout)
    }

    /// ``run(_:_:in:environment:timeout:)`` for synchronous code: blocks the calling thread, polling every 5 ms.
    public static func runBlocking(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval = 120
    ) throws -> ProcessOutput {
        let started = try Started(executable, arguments, in: directory, environment: environment)
        let deadline = Date().addingTimeInterval(timeout)
        while !started.hasEnded() && Date() < deadline { usleep(5_000) }
        return try started.finish(timeout: timeout)
    }

    /// Why a program could not be started.
    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A started program whose stdout and stderr go to files in a scratch folder.
    private final class Started {
        let pid: pid_t
        let executable: URL
        let arguments: [String]
        let scratch: URL
        let outURL: URL
        let errURL: URL
        /// The wait status once reaped.
        private var status: Int32?

        init(_ executable: URL, _ arguments: [String], in directory: URL?, environment: [String: String]?) throws {
            self.executable = executable
            self.arguments = arguments
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
                "photodrop-run-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            outURL = scratch.appendingPathComponent("stdout")
            errURL = scratch.appendingPathComponent("stderr")
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, errURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            // Nothing else of the test process's: a file another test holds open for writing (without close-on-exec,
            // as Foundation's FileHandle opens it) would stay open for as long as this child runs.
            do { try ChildProcess.closeInheritedDescriptors(from: 3, in: &actions) } catch {
                throw StartFailure(description: "cannot start \(executable.path): \(error)")
            }
            // A working folder through env(1) (`posix_spawn_file_actions_addchdir_np` is not in Swift's Glibc).
            let program = directory == nil ? executable.path : "/usr/bin/env"
            let command = (directory.map { [program, "-C", $0.path] } ?? []) + [executable.path] + arguments
            var variables = ProcessInfo.processInfo.environment
            for (name, value) in environment ?? [:] { variables[name] = value }
            let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
            let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer {
                for pointer in argv { free(pointer) }
                for pointer in envp { free(pointer) }
            }
            var child: pid_t = 0
            var result = posix_spawn(&child, program, &actions, nil, argv, envp)
            // ETXTBSY: a program the test has just written (a copy of photodrop) is still open for writing in a child
            // another thread is starting at this moment (it inherited the descriptor until its exec); it passes.
            for _ in 0..<100 where result == ETXTBSY {
                usleep(10_000)
                result = posix_spawn(&child, program, &actions, nil, argv, envp)
            }
            guard result == 0 else {
                try? FileManager.default.removeItem(at: scratch)
                throw StartFailure(description: "cannot start \(executable.path): \(String(cString: strerror(result)))")
            }
            pid = child
        }

        deinit {
            if status == nil {
                kill(pid, SIGKILL)
                _ = reap(blocking: true)
            }
            try? FileManager.default.removeItem(at: scratch)
        }

        /// Reaps the program if it ended (or waits for it with `blocking`); whether it has ended.
        @discardableResult
        private func reap(blocking: Bool) -> Bool {
            if status != nil { return true }
            var value: Int32 = 0
            while true {
                let result = waitpid(pid, &value, blocking ? 0 : WNOHANG)
                if result == pid {
                    status = value
                    return true
                }
                if result == -1 && errno == EINTR { continue }
                return false
            }
        }

        func hasEnded() -> Bool { reap(blocking: false) }

        /// Kills the program if it still runs (and throws), else collects what it printed.
        func finish(timeout: TimeInterval) throws -> ProcessOutput {
            if !reap(blocking: false) {
                kill(pid, SIGKILL)
                reap(blocking: true)
                throw ProcessTimeout(
                    description:
                        "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) timed out after \(timeout) s")
            }
            let value = status ?? 0
            // Exited: its status; killed by a signal: 128 + the signal, as a shell reports it.
            let code = value & 0x7F == 0 ? (value >> 8) & 0xFF : 128 + (value & 0x7F)
            return ProcessOutput(
                status: code,
                stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
        }
    }
}

/// The package's root folder, from this file's path (`Tests/Fixtures/ProcessRunner.swift`).
public let packageRootPath: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
