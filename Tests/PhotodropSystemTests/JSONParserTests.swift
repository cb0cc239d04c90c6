import Testing

@testable import PhotodropSystem

@Suite("JSONParser", .timeLimit(.minutes(3)))
struct JSONParserTests {
    @Test func parsesEveryKindWithPositions() throws {
        let text = """
            {
              "a": [1, -2.5e3, true, false, null],
              "b": "x\\n\\u00e9\\ud83d\\ude00",
              "c": {}
            }
            """
        let value = try JSONParser.parse(text)
        guard case .object(let members) = value.kind else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["a", "b", "c"])
        #expect(members[0].keyPosition == .init(line: 2, column: 3))
        guard case .array(let elements) = members[0].value.kind else {
            Issue.record("not an array")
            return
        }
        #expect(elements.map(\.kind) == [.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null])
        #expect(elements[1].position == .init(line: 2, column: 12))
        #expect(members[1].value.kind == .string("x\né😀"))
        #expect(members[2].value.kind == .object([]))
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let value = try JSONParser.parse("{\"é\": 1, \"x\": 2}")
        guard case .object(let members) = value.kind else { return }
        #expect(members[1].keyPosition.column == 10)
    }

    @Test(arguments: [
        ("{\"a\": 1,}", "trailing comma before }", 1, 9),
        ("[1, 2,]", "trailing comma before ]", 1, 7),
        ("{\"a\": 1, \"a\": 2}", "appears twice", 1, 10),
        ("{'a': 1}", "expected a key in double quotes", 1, 2),
        ("{\"a\": 'x'}", "double quotes", 1, 7),
        ("{\"a\": 01}", "leading zeros", 1, 8),
        ("{\"a\": 1.}", "after the decimal point", 1, 9),
        ("{\"a\": tru}", "JSON literals", 1, 7),
        ("{\"a\": 1 // c\n}", "comment", 1, 9),
        ("{\"a\": \"\\q\"}", "unknown escape", 1, 10),
        ("{\"a\": \"\\ud800\"}", "low surrogate", 1, 14),
        ("{\"a\": \"x\ty\"}", "control character", 1, 9),
        ("{\"a\": 1", "a } is missing", 1, 8),
        ("{\"a\": 1} x", "after the end", 1, 10),
        ("", "ends where a value was expected", 1, 1),
        ("\n\n  {\"a\" 1}", "expected : after the key", 3, 8),
    ])
    func reportsWhatAndWhere(_ text: String, _ fragment: String, _ line: Int, _ column: Int) {
        #expect {
            try JSONParser.parse(text)
        } throws: { error in
            guard let error = error as? JSONParser.SyntaxError else { return false }
            return error.message.contains(fragment) && error.position == .init(line: line, column: column)
        }
    }

    @Test func rejectsInvalidUTF8WithItsLine() {
        let bytes: [UInt8] = Array("{\n\"a\": \"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        #expect {
            try JSONParser.parse(bytes)
        } throws: { error in
            (error as? JSONParser.SyntaxError)?.position.line == 2
                && (error as? JSONParser.SyntaxError)?.message.contains("UTF-8") == true
        }
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(deep) }
        let fine = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect(throws: Never.self) { try JSONParser.parse(fine) }
    }

    @Test func skipsAByteOrderMark() throws {
        let value = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8))
        #expect(value.kind == .object([]))
    }
}

@Suite("JSONText", .timeLimit(.minutes(3)))
struct JSONTextTests {
    @Test func escapesWhatJSONRequires() throws {
        let nasty = "a\"b\\c\nd\u{01}é😀"
        let quoted = JSONWriter.quoted(nasty)
        #expect(quoted == "\"a\\\"b\\\\c\\nd\\u0001é😀\"")
        // It round-trips through our own parser.
        #expect(try JSONParser.parse(quoted).kind == .string(nasty))
    }
}
