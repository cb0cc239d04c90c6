import Foundation
import TestFixtures
import Testing

/// contrib/prometheus (the alert set) and contrib/grafana (the dashboard) against the real programs: promtool checks the
/// rules and runs their unit tests; then a real Prometheus scrapes a real `serve` (which passes on the metrics of a real
/// `watch`), loads the alert set, and evaluates every rule and every dashboard query. A metric the alerts or the
/// dashboard name that photodrop does not write, a query Prometheus cannot parse, or a runbook link to a missing
/// section fails the test.
@Suite(
    "Prometheus alerts and the Grafana dashboard, against a real Prometheus", .serialized, .timeLimit(.minutes(3)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl (apt-get install curl)"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool"), "promtool (apt-get install prometheus)"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/prometheus"), "prometheus (apt-get install prometheus)"))
struct MonitoringTests {
    static let token = "monitoring-test-token-0123456789"
    static let alerts = packageRootPath + "/contrib/prometheus/photodrop-alerts.yml"
    static let alertTests = packageRootPath + "/contrib/prometheus/photodrop-alerts.test.yml"
    static let dashboard = packageRootPath + "/contrib/grafana/photodrop-dashboard.json"

    @Test("promtool: the alert rules are valid and their unit tests pass")
    func promtoolChecksAndTests() async throws {
        let check = try await runProcess(URL(fileURLWithPath: "/usr/bin/promtool"), ["check", "rules", Self.alerts])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let rules = try Self.alertNames()
        #expect(check.stdout.contains("SUCCESS: \(rules.count) rules found"), "\(check.stdout)")
        let tests = try await runProcess(URL(fileURLWithPath: "/usr/bin/promtool"), ["test", "rules", Self.alertTests])
        #expect(tests.status == 0, "\(tests.stdout)\(tests.stderr)")
        // Every alert has a unit test that expects it to fire.
        let testText = try String(contentsOfFile: Self.alertTests, encoding: .utf8)
        for name in rules where !testText.contains("alertname: \(name)\n        exp_alerts:\n          - ") {
            Issue.record("no unit test in photodrop-alerts.test.yml makes \(name) fire")
        }
        // And the unit tests can fail: a wrong expected value is caught.
        let folder = try TemporaryFolder("alerts")
        try FileManager.default.copyItem(atPath: Self.alerts, toPath: folder.url("photodrop-alerts.yml"))
        try testText.replacingOccurrences(of: "rejected 60 files", with: "rejected 61 files")
            .write(toFile: folder.url("wrong.test.yml"), atomically: true, encoding: .utf8)
        let wrong = try await runProcess(URL(fileURLWithPath: "/usr/bin/promtool"), ["test", "rules", folder.url("wrong.test.yml")])
        #expect(wrong.status != 0)
    }

    @Test("every runbook link of the alerts names an existing page and section")
    func runbooksResolve() throws {
        let text = try String(contentsOfFile: Self.alerts, encoding: .utf8)
        let runbooks = text.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("runbook:") else { return nil }
            return trimmed.dropFirst(8).trimmingCharacters(in: CharacterSet(charactersIn: " \""))
        }
        #expect(runbooks.count == (try Self.alertNames()).count, "one runbook per alert")
        for runbook in runbooks where !runbook.contains("{{") {
            let parts = runbook.split(separator: "#", maxSplits: 1).map(String.init)
            #expect(FileManager.default.fileExists(atPath: packageRootPath + "/" + parts[0]), "\(runbook)")
            if parts.count == 2 {
                #expect(try DocumentationLinkTests.anchors(of: parts[0]).contains(parts[1]), "\(runbook)")
            }
        }
    }

    @Test("a real Prometheus scrapes serve and watch, evaluates every alert rule and every dashboard query")
    func prometheusEvaluatesRulesAndDashboard() async throws {
        let sandbox = try Sandbox(
            "monitoring",
            settings: [
                "serve": ["listen": "127.0.0.1:0", "token": Self.token],
                "metrics": ["textfile": "photodrop.prom", "intervalSeconds": 1],
            ])
        let daemon = try WatchDaemon(sandbox)
        try sandbox.write("Inbox/Trip/one.jpg", MediaFixtures.jpeg(seed: 1))
        try sandbox.write("Inbox/Trip/notes.txt", MediaFixtures.text)
        let metricsFile = sandbox.root.appendingPathComponent("photodrop.prom")
        #expect(
            await eventuallyTrue {
                ((try? String(contentsOf: metricsFile, encoding: .utf8)) ?? "").contains(
                    "photodrop_files_total{outcome=\"rejected\"} 1")
            })
        let server = try await ServeProcess(sandbox)
        let target = String(server.base.dropFirst("http://".count))
        let prometheus = try await PrometheusProcess(scraping: target, token: Self.token, rules: Self.alerts, in: sandbox)

        // Three scrapes at least: rates need two samples.
        #expect(
            await eventuallyTrue(timeout: 60) {
                (try? prometheus.querySync("count_over_time(up{job=\"photodrop\"}[1m])")).flatMap(\.first?.value)
                    .map { $0 >= 3 } ?? false
            }, "Prometheus scraped serve three times")
        let up = try await prometheus.query("up{job=\"photodrop\"}")
        #expect(up.first?.value == 1, "serve answers the scrape with its token: \(up)")

        // Every metric the alerts and the dashboard name is one photodrop writes (here: present in Prometheus).
        let dashboardQueries = try Self.dashboardQueries()
        let alertText = try String(contentsOfFile: Self.alerts, encoding: .utf8)
        var names = Self.metricNames(in: alertText)
        for query in dashboardQueries { names.formUnion(Self.metricNames(in: query)) }
        #expect(names.count >= 25, "\(names.sorted())")
        for name in names.sorted() {
            // A histogram's series are its buckets, sum and count.
            let series = try await prometheus.query("count({__name__=~\"\(name)|\(name)_bucket\"})")
            #expect(series.first.map { $0.value > 0 } == true, "\(name) is named by the alerts or the dashboard, but photodrop does not write it")
        }
        // Each health code photodrop writes has its section in the troubleshooting page (the alerts link there).
        let codes = try await prometheus.query("photodrop_health_problems").compactMap { $0.labels["code"] }
        #expect(codes.count >= 5, "\(codes)")
        let sections = try DocumentationLinkTests.anchors(of: "docs/troubleshooting.md")
        for code in codes { #expect(sections.contains(code.lowercased()), "docs/troubleshooting.md has no section \(code)") }

        // Every dashboard query is valid PromQL that Prometheus evaluates (with the dashboard's variables filled in).
        #expect(dashboardQueries.count >= 30, "\(dashboardQueries.count) queries")
        for query in dashboardQueries {
            let concrete = query.replacingOccurrences(of: "$instance", with: ".*")
                .replacingOccurrences(of: "$__rate_interval", with: "1m")
            do { _ = try await prometheus.query(concrete) } catch { Issue.record("dashboard query \(query): \(error)") }
        }
        // And a query photodrop does not answer is caught: the check above can fail.
        #expect(try await prometheus.query("count({__name__=\"photodrop_no_such_metric\"})").isEmpty)
        await #expect(throws: (any Error).self) { _ = try await prometheus.query("sum(rate(photodrop_files_total[") }

        // The alert set is loaded and every rule evaluates without an error; a healthy daemon fires nothing.
        #expect(
            await eventuallyTrue(timeout: 30) {
                let rules = (try? prometheus.rulesSync()) ?? []
                return rules.count == (try? Self.alertNames().count) && rules.allSatisfy { $0.health == "ok" }
            }, "every rule loaded and evaluated: \((try? prometheus.rulesSync()) ?? [])")
        let firing = try prometheus.rulesSync().filter { $0.state != "inactive" }
        #expect(firing.isEmpty, "a healthy photodrop fires \(firing)")

        await prometheus.stop()
        try await server.process.stop()
        #expect(try await daemon.stop() == 0)
    }

    static func alertNames() throws -> [String] {
        try String(contentsOfFile: alerts, encoding: .utf8).split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("- alert: ") ? String(trimmed.dropFirst(9)) : nil
        }
    }

    /// Every `expr` of every panel of the dashboard.
    static func dashboardQueries() throws -> [String] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dashboard)))
        guard let dashboard = object as? [String: Any], let panels = dashboard["panels"] as? [[String: Any]] else {
            throw HarnessError("the dashboard has no panels")
        }
        #expect(dashboard["uid"] as? String == "photodrop")
        var queries: [String] = []
        for panel in panels where panel["type"] as? String != "row" {
            let targets = panel["targets"] as? [[String: Any]] ?? []
            #expect(!targets.isEmpty, "panel \(panel["title"] ?? "") has no query")
            queries += targets.compactMap { $0["expr"] as? String }
        }
        return queries
    }

    /// The photodrop metric families a PromQL text names (a histogram's `_bucket`, `_sum` and `_count` as its family).
    static func metricNames(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: #"photodrop_[a-z_]+"#)
        var names = Set<String>()
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let range = Range(match.range, in: text) else { continue }
            var name = String(text[range])
            for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
                name = String(name.dropLast(suffix.count))
            }
            // `photodrop-watch` units and `photodrop_` prefixes in prose are not metrics.
            if name.hasSuffix("_") { continue }
            names.insert(name)
        }
        return names
    }
}

/// A Prometheus server started for a test (its own data folder, on a free loopback port), stopped by its PID.
final class PrometheusProcess: @unchecked Sendable {
    // @unchecked: everything is set in init and never changes.
    let program: BackgroundProgram
    let base: String

    struct Sample: CustomStringConvertible {
        var labels: [String: String]
        var value: Double
        var description: String { "\(labels) \(value)" }
    }

    struct Rule: CustomStringConvertible {
        var name: String
        var health: String
        var state: String
        var lastError: String
        var description: String { "\(name): \(health) \(state) \(lastError)" }
    }

    init(scraping target: String, token: String, rules: String, in sandbox: Sandbox) async throws {
        let folder = sandbox.root.appendingPathComponent("prometheus")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try token.write(to: folder.appendingPathComponent("token"), atomically: true, encoding: .utf8)
        let config = """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            rule_files:
              - \(rules)
            scrape_configs:
              - job_name: photodrop
                authorization:
                  credentials_file: \(folder.appendingPathComponent("token").path)
                static_configs:
                  - targets: ["\(target)"]
            """
        try config.write(to: folder.appendingPathComponent("prometheus.yml"), atomically: true, encoding: .utf8)
        let port = try await freeLoopbackPort()
        let base = "http://127.0.0.1:\(port)"
        self.base = base
        let program = try BackgroundProgram(
            "/usr/bin/prometheus",
            [
                "--config.file=\(folder.appendingPathComponent("prometheus.yml").path)",
                "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
                "--web.listen-address=127.0.0.1:\(port)",
            ], log: folder.appendingPathComponent("prometheus.log"))
        self.program = program
        let ready = await eventuallyTrue(timeout: 60) {
            let answer = try? ProcessRunner.runBlocking(
                URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-o", "/dev/null", "-w", "%{http_code}", base + "/-/ready"])
            return answer?.stdout == "200" || !program.isRunning
        }
        guard ready, program.isRunning else {
            await program.stop()
            throw HarnessError("prometheus did not start:\n\(program.output)")
        }
    }

    /// SIGTERM to its PID, and waits for it to exit (SIGKILL after 30 s).
    func stop() async { await program.stop() }

    /// An instant query's samples; throws Prometheus' error (a query it cannot parse or evaluate).
    func querySync(_ query: String) throws -> [Sample] {
        var components = URLComponents(string: base + "/api/v1/query")!
        components.queryItems = [URLQueryItem(name: "query", value: query)]
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        let object = try fetch(components.url!)
        guard let data = object["data"] as? [String: Any] else { throw HarnessError("no data: \(object)") }
        switch data["resultType"] as? String {
        case "vector":
            return (data["result"] as? [[String: Any]] ?? []).map { item in
                let value = (item["value"] as? [Any])?.last as? String
                return Sample(labels: item["metric"] as? [String: String] ?? [:], value: value.flatMap(Double.init) ?? .nan)
            }
        case "scalar":
            let value = (data["result"] as? [Any])?.last as? String
            return [Sample(labels: [:], value: value.flatMap(Double.init) ?? .nan)]
        default:
            throw HarnessError("unexpected result: \(data)")
        }
    }

    func query(_ query: String) async throws -> [Sample] { try querySync(query) }

    /// The alerting rules Prometheus loaded, with their health.
    func rulesSync() throws -> [Rule] {
        let object = try fetch(URL(string: base + "/api/v1/rules")!)
        let groups = ((object["data"] as? [String: Any])?["groups"] as? [[String: Any]]) ?? []
        return groups.flatMap { group in
            (group["rules"] as? [[String: Any]] ?? []).map { rule in
                Rule(
                    name: rule["name"] as? String ?? "", health: rule["health"] as? String ?? "",
                    state: rule["state"] as? String ?? "", lastError: rule["lastError"] as? String ?? "")
            }
        }
    }

    private func fetch(_ url: URL) throws -> [String: Any] {
        let result = try ProcessRunner.runBlocking(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", url.absoluteString])
        guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw HarnessError("not JSON: \(result.stdout)")
        }
        guard object["status"] as? String == "success" else {
            throw HarnessError("Prometheus: \(object["errorType"] ?? "") \(object["error"] ?? "")")
        }
        return object
    }
}
