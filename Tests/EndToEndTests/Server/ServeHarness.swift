import Foundation
import TestFixtures

/// A running `photodrop serve` (a real process on a port the system chose) and where it listens.
final class ServeProcess: @unchecked Sendable {
    // @unchecked: both are set in init and never change.
    let process: BackgroundPhotodrop
    let base: String

    init(
        _ sandbox: Sandbox, scheme: String = "http", environment: [String: String]? = nil, launcher: Launcher? = nil
    ) async throws {
        process = try BackgroundPhotodrop(sandbox, ["serve"], environment: environment, launcher: launcher)
        // Generous: on two busy cores a debug build's start (and its warm-up page) can take seconds.
        let deadline = Date().addingTimeInterval(60)
        var port: String?
        // Started once both lines are out: where it listens, and the sign-in address.
        while (port == nil || !process.stdout.contains("?token=")) && Date() < deadline && process.isRunning {
            port = process.stdout.split(separator: "\n").first { $0.contains("listening on") }?
                .split(separator: " ").last.map(String.init)
            await pause(20_000)
        }
        guard let port else { throw HarnessError("serve did not start:\n\(process.stdout)\n\(process.stderr)") }
        base = "\(scheme)://127.0.0.1:\(port)"
    }

    /// The sign-in address serve printed.
    var signInURL: String? {
        process.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("http") }.map(String.init)
    }
}

/// What curl saw.
struct CurlReply {
    var status: Int
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw HarnessError("not a JSON object: \(text)")
        }
        return object
    }
}

enum ServeHarness {
    /// ``curl(_:_:token:in:timeout:)`` for synchronous code (a condition polled by `eventuallyTrue`): a GET.
    static func curlBlocking(_ url: String, token: String?, in sandbox: Sandbox) throws -> CurlReply {
        var arguments = ["-s", "-g", "-w", "\n%{http_code}"]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        let result = try ProcessRunner.runBlocking(URL(fileURLWithPath: "/usr/bin/curl"), arguments + [url], timeout: 30)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? -1
        return CurlReply(status: status, headers: [:], body: Data(lines.dropLast().joined(separator: "\n").utf8))
    }


    /// One request with curl (a real HTTP client); `token` is sent as the bearer token.
    static func curl(
        _ url: String, _ options: [String] = [], token: String?, in sandbox: Sandbox, timeout: TimeInterval = 30
    ) async throws -> CurlReply {
        let stamp = UUID().uuidString
        let headerFile = sandbox.root.appendingPathComponent("h-\(stamp)").path
        let bodyFile = sandbox.root.appendingPathComponent("b-\(stamp)").path
        var arguments = ["-s", "-g", "--path-as-is", "-D", headerFile, "-o", bodyFile, "-w", "%{http_code}"]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/curl"), arguments + options + [url], timeout: timeout)
        var headers: [String: String] = [:]
        for line in ((try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? "").split(separator: "\r\n") {
            if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data()
        return CurlReply(status: Int(result.stdout) ?? -1, headers: headers, body: body)
    }
}
