import PhotodropSystem

/// A request's JSON object body, read with errors that say which member is wrong.
struct JSONBody {
    private let members: [JSONValue.Member]

    init(_ request: HTTPRequest) throws {
        guard !request.body.isEmpty else {
            members = []
            return
        }
        let document: JSONValue
        do { document = try JSONParser.parse(request.body) } catch {
            throw APIFailure(400, "the body is not JSON: \(error.message)")
        }
        guard case .object(let members) = document.kind else { throw APIFailure(400, "the body must be a JSON object") }
        self.members = members
    }

    private func value(_ key: String) -> JSONValue? { members.last { $0.key == key }?.value }

    func string(_ key: String) throws -> String {
        guard let value = value(key), case .string(let text) = value.kind, !text.isEmpty, text.utf8.count <= 1024 else {
            throw APIFailure(400, "the body needs \"\(key)\": a non-empty string")
        }
        return text
    }

    func strings(_ key: String) throws -> [String] {
        guard let value = value(key), case .array(let items) = value.kind, !items.isEmpty, items.count <= 10_000 else {
            throw APIFailure(400, "the body needs \"\(key)\": a list of identifiers")
        }
        return try items.map { item in
            guard case .string(let text) = item.kind else { throw APIFailure(400, "\"\(key)\" must list strings") }
            return text
        }
    }

    func bool(_ key: String, default fallback: Bool) throws -> Bool {
        guard let value = value(key) else { return fallback }
        guard case .bool(let flag) = value.kind else { throw APIFailure(400, "\"\(key)\" must be true or false") }
        return flag
    }
}
