package import ReformSDK

/// Renders ``SchemaObject`` declarations as a JSON Schema (draft 2020-12) document: named shapes
/// once under `$defs`, referenced where they are used.
package struct JSONSchemaDocument {
    /// The dialect every document declares.
    package static let dialect = "https://json-schema.org/draft/2020-12/schema"

    private var definitions: [(name: String, schema: Value)] = []
    private var rendering: Set<String> = []

    /// The document for a file whose top level is `root`, titled `title`.
    package static func render(_ root: SchemaObject, title: String) -> Value {
        var document = JSONSchemaDocument()
        let body = document.inline(root)
        var out: Object = ["$schema": .string(dialect), "title": .string(title)]
        if case .object(let fields) = body {
            for member in fields.members { out[member.key] = member.value }
        }
        if !document.definitions.isEmpty {
            var defs = Object()
            for definition in document.definitions.sorted(by: { $0.name < $1.name }) { defs[definition.name] = definition.schema }
            out["$defs"] = .object(defs)
        }
        return .object(out)
    }

    /// The document as the text `reform schema` prints: indented JSON and a final newline.
    package static func text(_ root: SchemaObject, title: String) -> String {
        JSON.prettyString(render(root, title: title)) + "\n"
    }

    private mutating func schema(_ type: SchemaType) -> Value {
        switch type {
        case .string(let pattern):
            var out: Object = ["type": "string"]
            if let pattern { out["pattern"] = .string(pattern) }
            return .object(out)
        case .choice(let words):
            return ["enum": .array(words.map(Value.string))]
        case .int(let minimum, let maximum):
            if let minimum, minimum == maximum { return ["const": .int(minimum)] }
            var out: Object = ["type": "integer"]
            if let minimum { out["minimum"] = .int(minimum) }
            if let maximum { out["maximum"] = .int(maximum) }
            return .object(out)
        case .number:
            return ["type": "number"]
        case .bool:
            return ["type": "boolean"]
        case .duration:
            return [
                "description": "seconds, or a duration like 10s, 200ms, 2m, 1h",
                "oneOf": [["type": "number", "minimum": 0], ["type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?(ms|s|m|h)$"]],
            ]
        case .any:
            return .object(Object())
        case .null:
            return ["type": "null"]
        case .anyButMapping:
            return ["type": ["string", "number", "boolean", "null", "array"]]
        case .list(let item):
            return ["type": "array", "items": schema(item)]
        case .named(let value):
            return ["type": "object", "additionalProperties": schema(value)]
        case .oneOf(let types):
            return ["anyOf": .array(types.map { schema($0) })]
        case .object(let shape):
            guard let name = shape.name else { return inline(shape) }
            if !rendering.contains(name) && !definitions.contains(where: { $0.name == name }) {
                rendering.insert(name)
                let body = inline(shape)
                definitions.append((name, body))
            }
            return ["$ref": .string("#/$defs/\(name)")]
        }
    }

    private mutating func inline(_ shape: SchemaObject) -> Value {
        var properties = Object()
        for key in shape.keys {
            var property = Object()
            if case .object(let fields) = schema(key.type) {
                for member in fields.members where member.key != "description" { property[member.key] = member.value }
            }
            property["description"] = .string(key.description)
            properties[key.name] = .object(property)
        }
        var out: Object = [
            "type": "object", "description": .string(shape.description), "properties": .object(properties),
            "additionalProperties": false,
        ]
        if !shape.required.isEmpty { out["required"] = .array(shape.required.map(Value.string)) }
        if shape.exactlyOne {
            out["minProperties"] = 1
            out["maxProperties"] = 1
        }
        return .object(out)
    }
}
