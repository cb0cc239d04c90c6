import Foundation
import Testing

@testable import PhotodropSystem

/// The replacements of Foundation's formatting and normalization, checked against what Foundation itself (the tests
/// may import it) and C's printf make of the same values.
@Suite("Numbers, text and calendar fields without Foundation", .timeLimit(.minutes(1)))
struct TextAndTimeTests {
    @Test("NumberText prints what printf prints", arguments: [0.0, 0.05, 0.125, 0.375, 0.949, 1.0, 1.005, 2.5, 9.995, 12.345, 99.95, 123.456, -0.4, -3.14159, 1e6 + 0.25, 2.675])
    func fixed(value: Double) {
        for places in 0...3 {
            #expect(NumberText.fixed(value, places: places) == String(format: "%.\(places)f", value), "\(value) \(places)")
        }
    }

    @Test("decimal and hexadecimal with leading zeros; compact drops trailing zeros like %g")
    func widths() {
        #expect(NumberText.decimal(7, width: 2) == "07" && NumberText.decimal(2024, width: 4) == "2024")
        #expect(NumberText.decimal(-5, width: 3) == "-005" && NumberText.decimal(123, width: 2) == "123")
        #expect(NumberText.hex(UInt8(0x0A), width: 2) == "0a" && NumberText.hex(UInt8(0xFF), width: 2, uppercase: true) == "FF")
        for value in [2.8, 4.0, 35.0, 0.5, 1.25, 100.0, 29.97] {
            #expect(NumberText.compact(value) == String(format: "%g", value), "\(value)")
        }
    }

    @Test("UTC calendar fields round trip, as gmtime and timegm count")
    func calendar() {
        for seconds: Int64 in [0, 951_782_400, 1_709_251_199, 4_102_444_800, -86_400] {
            let fields = UTCDateFields(secondsSince1970: seconds)
            #expect(fields.secondsSince1970 == seconds)
        }
        let leap = UTCDateFields(secondsSince1970: 951_782_400)  // 2000-02-29T00:00:00Z
        #expect((leap.year, leap.month, leap.day, leap.hour) == (2000, 2, 29, 0))
    }

    @Test("NFC as Foundation's precomposedStringWithCanonicalMapping; trimming as trimmingCharacters")
    func text() {
        for text in ["Cafe\u{301}", "A\u{30A}ngstro\u{308}m", "plain", "한국어", "e\u{301}\u{301}", ""] {
            #expect(text.canonicallyComposed == text.precomposedStringWithCanonicalMapping, "\(text)")
            #expect(Array(text.canonicallyComposed.unicodeScalars) == Array(text.precomposedStringWithCanonicalMapping.unicodeScalars))
        }
        for text in ["  a b \t", "\u{00A0}x\u{2003}", " \n y \n", "", "   "] {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "\(text)")
            #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test("Errno names the values C gives them; a SystemError reads like strerror")
    func errors() {
        #expect(Errno.noSuchFileOrDirectory.rawValue == ENOENT && Errno.wouldBlock == Errno.resourceTemporarilyUnavailable)
        let error = SystemError(code: .permissionDenied, call: "open", path: "/srv/a.jpg")
        #expect(error.description == "open(\"/srv/a.jpg\") failed: Permission denied (errno \(EACCES))")
    }
}
