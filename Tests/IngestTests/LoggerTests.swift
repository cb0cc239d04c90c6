import Foundation
import Testing

@testable import Ingest
import PhotodropTelemetry

@Suite("Logger and UTCTimestamp", .timeLimit(.minutes(3)))
struct LoggerTests {
    static let fixedTime = UTCTimestamp(seconds: 1_748_781_296, nanoseconds: 789_654_321)  // 2025-06-01T12:34:56.789Z

    func capture(level: LogLevel = .info, format: LogFormat) -> (Logger, LogCapture) {
        let capture = LogCapture()
        let logger = Logger(label: "test", level: level, format: format, sink: capture.sink, clock: { LoggerTests.fixedTime })
        return (logger, capture)
    }

    @Test func textLinesQuoteOnlyWhatNeedsIt() {
        let (logger, capture) = capture(format: .text)
        logger.info("imported", metadata: ["path": "Trip 1/IMG_1.jpg", "outcome": "photo", "bytes": 1234, "duplicate": false])
        #expect(
            capture.all == [
                "2025-06-01T12:34:56.789Z info    imported path=\"Trip 1/IMG_1.jpg\" outcome=photo bytes=1234 duplicate=false\n"
            ])
    }

    @Test func aFileNameCannotForgeASecondLine() {
        let (logger, capture) = capture(format: .text)
        logger.warning("rejected\nfake line", metadata: ["path": "evil\n2025-01-01T00:00:00.000Z error    forged", "x": "a=b"])
        #expect(capture.all.count == 1)
        let line = capture.all[0]
        #expect(line.filter { $0 == "\n" }.count == 1 && line.hasSuffix("\n"))
        #expect(line.contains("rejected\\nfake line"))
        #expect(line.contains("path=\"evil\\n2025"))
        #expect(line.contains("x=\"a=b\""))
    }

    @Test func jsonLinesAreValidJSONWithTypedFields() throws {
        let (logger, capture) = capture(format: .json)
        logger.error("failed \"x\"", metadata: ["path": "Trip/é.jpg", "attempt": 3, "ok": true, "ratio": .double(0.5)])
        let line = try #require(capture.all.first)
        #expect(line.hasSuffix("}\n"))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["time"] as? String == "2025-06-01T12:34:56.789Z")
        #expect(object?["level"] as? String == "error")
        #expect(object?["message"] as? String == "failed \"x\"")
        #expect(object?["path"] as? String == "Trip/é.jpg")
        #expect(object?["attempt"] as? Int == 3)
        #expect(object?["ok"] as? Bool == true)
        #expect(object?["ratio"] as? Double == 0.5)
        #expect(line.hasPrefix("{\"time\":\"2025-06-01T12:34:56.789Z\",\"level\":\"error\",\"message\":"))
    }

    @Test("shaped like swift-log: a label, a handler, logger metadata after the event's, a settable level")
    func swiftLogShape() throws {
        var (logger, capture) = capture(format: .json)
        #expect(logger.label == "test")
        logger[metadataKey: "component"] = "watcher"
        logger.info("stored", metadata: ["path": "a.jpg"])
        logger.logLevel = .warning
        logger.info("dropped")
        var copy = logger
        copy[metadataKey: "component"] = nil
        copy.warning("kept")
        #expect(logger[metadataKey: "component"] == "watcher", "a copy has its own metadata")
        #expect(capture.all.count == 2, "\(capture.all)")
        let first = try #require(
            JSONSerialization.jsonObject(with: Data(capture.all[0].utf8)) as? [String: Any])
        #expect(first["path"] as? String == "a.jpg" && first["component"] as? String == "watcher")
        #expect(capture.all[0].range(of: "path")!.lowerBound < capture.all[0].range(of: "component")!.lowerBound)
        #expect(!capture.all[1].contains("component"))
    }

    @Test func levelsFilterAndDisabledMessagesAreNotBuilt() {
        let (logger, capture) = capture(level: .warning, format: .text)
        var built = 0
        func expensive() -> String {
            built += 1
            return "x"
        }
        logger.debug(expensive())
        logger.info(expensive())
        logger.warning(expensive())
        logger.error(expensive())
        #expect(capture.all.count == 2)
        #expect(built == 2)
        #expect(logger.isEnabled(.error) && !logger.isEnabled(.info))
        #expect(LogLevel.debug < .info && LogLevel.info < .warning && LogLevel.warning < .error)
    }

    @Test func configuredFromTheLogSection() {
        let capture = LogCapture()
        let logger = Logger(label: "test", settings: .init(format: .json, level: .debug), sink: capture.sink)
        logger.debug("hello")
        #expect(capture.all.first?.hasPrefix("{\"time\":") == true)
    }

    @Test(arguments: [
        (Int64(0), Int32(0), "1970-01-01T00:00:00.000Z"),
        (951_782_400, 0, "2000-02-29T00:00:00.000Z"),
        (1_709_164_800, 1_000_000, "2024-02-29T00:00:00.001Z"),
        (1_735_689_599, 999_999_999, "2024-12-31T23:59:59.999Z"),
        (4_102_444_800, 0, "2100-01-01T00:00:00.000Z"),
        (-1, 0, "1969-12-31T23:59:59.000Z"),
        (253_402_300_799, 0, "9999-12-31T23:59:59.000Z"),
    ])
    func timestampsMatchTheCalendar(_ seconds: Int64, _ nanoseconds: Int32, _ expected: String) {
        #expect(UTCTimestamp(seconds: seconds, nanoseconds: nanoseconds).iso8601 == expected)
    }

    @Test func timestampsAgreeWithFoundationOverManyDays() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var seconds: Int64 = -2_208_988_800  // 1900-01-01
        while seconds < 4_102_444_800 {  // 2100-01-01
            let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(UTCTimestamp(seconds: seconds).iso8601 == expected)
            seconds += 86_400 * 37 + 3_671
        }
    }

    @Test func formattingIsCheap() {
        let (logger, _) = capture(format: .json)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for index in 0..<20_000 { logger.info("imported", metadata: ["path": "Trip/IMG_\(index).jpg", "outcome": "photo"]) }
        }
        print("Logger: 20,000 JSON lines in \(elapsed)")
    }
}
