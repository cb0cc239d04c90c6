import Foundation

/// Checks a JSON value (as `JSONSerialization` reads it) against a schema of an OpenAPI 3.1 document: the part of JSON
/// Schema the document uses (`$ref` into the document, `oneOf`, `type` — one or a list —, `enum`, `properties`,
/// `required`, `additionalProperties`, `items`, `minimum`, `maximum`, `minItems`, `minLength`, `pattern`). A keyword it
/// does not know is a failure, so that the document cannot quietly say more than is checked.
struct JSONSchemaCheck {
    let document: [String: Any]

    static let known: Set<String> = [
        "$ref", "oneOf", "type", "enum", "properties", "required", "additionalProperties", "items", "minimum", "maximum",
        "minItems", "minLength", "pattern", "description", "format", "contentMediaType", "contentSchema",
    ]

    /// The problems of `value` against `schema`, each with its place (`$.assets[0].kind`); empty when it conforms.
    func problems(_ value: Any, _ schema: [String: Any], at place: String = "$") -> [String] {
        for key in schema.keys where !Self.known.contains(key) { return ["\(place): the schema uses '\(key)', which this check does not know"] }
        if let reference = schema["$ref"] as? String {
            guard let target = resolve(reference) else { return ["\(place): no \(reference) in the document"] }
            return problems(value, target, at: place)
        }
        if let choices = schema["oneOf"] as? [[String: Any]] {
            let fits = choices.filter { problems(value, $0, at: place).isEmpty }.count
            if fits != 1 {
                let reasons = choices.map { problems(value, $0, at: place).prefix(2).joined(separator: "; ") }
                return ["\(place): fits \(fits) of the \(choices.count) choices of oneOf (\(reasons.joined(separator: " | ")))"]
            }
            return []
        }
        if let allowed = schema["enum"] as? [Any] {
            guard allowed.contains(where: { Self.same($0, value) }) else { return ["\(place): \(value) is not one of \(allowed)"] }
        }
        if let type = schema["type"] {
            let types = (type as? [String]) ?? [type as? String ?? ""]
            guard types.contains(where: { Self.isOfType(value, $0) }) else {
                return ["\(place): \(Self.kind(of: value)) where the document says \(types.joined(separator: " or "))"]
            }
        }
        var found: [String] = []
        if let number = value as? NSNumber, Self.kind(of: value) != "boolean" {
            if let minimum = schema["minimum"] as? Double, number.doubleValue < minimum { found.append("\(place): \(number) < \(minimum)") }
            if let maximum = schema["maximum"] as? Double, number.doubleValue > maximum { found.append("\(place): \(number) > \(maximum)") }
        }
        if let text = value as? String {
            // A string that carries JSON (an event's `data`): its content is checked too.
            if schema["contentMediaType"] as? String == "application/json", let content = schema["contentSchema"] as? [String: Any] {
                if let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) {
                    found += problems(parsed, content, at: "\(place)(JSON)")
                } else {
                    found.append("\(place): not JSON")
                }
            }
            if let minimum = schema["minLength"] as? Int, text.count < minimum { found.append("\(place): shorter than \(minimum)") }
            if let pattern = schema["pattern"] as? String, text.range(of: pattern, options: .regularExpression) == nil {
                found.append("\(place): '\(text)' does not match \(pattern)")
            }
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                found.append("\(place): '\(name)' is missing")
            }
            for (name, member) in object {
                if let property = properties[name] {
                    found += problems(member, property, at: "\(place).\(name)")
                } else if let extra = schema["additionalProperties"] as? [String: Any] {
                    found += problems(member, extra, at: "\(place).\(name)")
                } else if (schema["additionalProperties"] as? Bool) == false {
                    found.append("\(place): '\(name)' is not in the document")
                }
            }
        }
        if let array = value as? [Any] {
            if let minimum = schema["minItems"] as? Int, array.count < minimum { found.append("\(place): fewer than \(minimum) items") }
            if let items = schema["items"] as? [String: Any] {
                for (index, item) in array.enumerated() { found += problems(item, items, at: "\(place)[\(index)]") }
            }
        }
        return found
    }

    /// `#/components/schemas/Name` (or any JSON pointer into the document).
    func resolve(_ reference: String) -> [String: Any]? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: Any = document
        for part in reference.dropFirst(2).split(separator: "/") {
            guard let object = node as? [String: Any], let next = object[String(part)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    static func kind(of value: Any) -> String {
        if value is NSNull { return "null" }
        if let number = value as? NSNumber {
            switch String(cString: number.objCType) {
            case "c", "B": return "boolean"
            case "d", "f": return number.doubleValue.rounded() == number.doubleValue ? "integer" : "number"
            default: return "integer"
            }
        }
        if value is String { return "string" }
        if value is [Any] { return "array" }
        if value is [String: Any] { return "object" }
        return "unknown"
    }

    static func isOfType(_ value: Any, _ type: String) -> Bool {
        let actual = kind(of: value)
        return actual == type || (type == "number" && actual == "integer")
    }

    static func same(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? String, let b = b as? String { return a == b }
        if let a = a as? NSNumber, let b = b as? NSNumber { return a == b && kind(of: a) == kind(of: b) }
        return a is NSNull && b is NSNull
    }
}
