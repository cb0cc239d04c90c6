import Foundation

/// Debian's chromium driven through chromedriver's W3C WebDriver protocol (JSON over HTTP, sent with curl): the
/// driver is started on a free port by the test and stopped by PID when the test lets go of it.
final class WebDriver: @unchecked Sendable {
    // @unchecked: used by one test at a time; the process is only signalled.
    static let driverPath = "/usr/bin/chromedriver"
    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: driverPath)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    }

    let driver: Process
    let base: String
    private(set) var session = ""

    init(scratch: URL) async throws {
        let port = Int.random(in: 20_000...60_000)
        driver = Process()
        driver.executableURL = URL(fileURLWithPath: Self.driverPath)
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        base = "http://127.0.0.1:\(port)"
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let ready = try? await request("GET", "/status"), (ready["value"] as? [String: Any])?["ready"] as? Bool == true {
                break
            }
            await pause(100_000)
        }
        // CI runs as root in a container: no sandbox, no /dev/shm; autoplay without a gesture for the video checks.
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": "/usr/bin/chromium",
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                            "--autoplay-policy=no-user-gesture-required", "--window-size=1280,900",
                            "--user-data-dir=\(scratch.appendingPathComponent("chromium-profile").path)",
                        ],
                    ],
                ]
            ]
        ]
        let created = try await request("POST", "/session", capabilities)
        guard let value = created["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            throw HarnessError("chromedriver did not start a session: \(created)")
        }
        session = id
    }

    deinit {
        if driver.isRunning {
            kill(driver.processIdentifier, SIGKILL)
            driver.waitUntilExit()
        }
    }

    /// Ends the browser session (chromium exits) and the driver (by PID: SIGTERM, then SIGKILL after 2 s).
    func quit() async {
        if !session.isEmpty { _ = try? await request("DELETE", "/session/\(session)") }
        session = ""
        guard driver.isRunning else { return }
        kill(driver.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(2)
        while driver.isRunning && Date() < deadline { await pause(20_000) }
        if driver.isRunning { kill(driver.processIdentifier, SIGKILL) }
        while driver.isRunning { await pause(20_000) }
    }

    @discardableResult
    func request(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var arguments = ["-s", "-X", method, "-H", "Content-Type: application/json", base + path]
        if let body {
            arguments += ["--data-binary", String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)]
        }
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/curl"), arguments, timeout: 60)
        guard let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw HarnessError("chromedriver answered \(result)")
        }
        return object
    }

    func navigate(_ url: String) async throws {
        try await request("POST", "/session/\(session)/url", ["url": url])
    }

    /// Runs `script` (a function body; `return` a value) in the page.
    func run(_ script: String) async throws -> Any? {
        let answer = try await request("POST", "/session/\(session)/execute/sync", ["script": script, "args": []])
        if let value = answer["value"] as? [String: Any], value["error"] != nil {
            throw HarnessError("the script failed: \(value)")
        }
        return answer["value"]
    }

    /// Clicks the first element matching `selector`, as a user would (WebDriver's element click).
    func click(_ selector: String) async throws {
        let found = try await request(
            "POST", "/session/\(session)/element", ["using": "css selector", "value": selector])
        guard let element = (found["value"] as? [String: Any])?.values.first as? String else {
            throw HarnessError("no element \(selector): \(found)")
        }
        let clicked = try await request("POST", "/session/\(session)/element/\(element)/click", [:])
        if let value = clicked["value"] as? [String: Any], value["error"] != nil {
            throw HarnessError("clicking \(selector) failed: \(value)")
        }
    }

    /// Waits until `script` returns true, up to `seconds`.
    func wait(_ seconds: Double, until script: String) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await run(script) as? Bool == true { return true }
            await pause(100_000)
        }
        return false
    }
}
