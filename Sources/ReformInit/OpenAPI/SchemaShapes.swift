import OpenAPIKit
import ReformSDK

/// What a JSON Schema of an OpenAPI document says about a value, with `$ref`s followed and
/// `allOf` merged: the only view of schemas `reform init` needs.
struct SchemaShape {
    /// A property of an object.
    struct Property {
        /// Its name as the API writes it.
        var name: String
        /// Its schema.
        var schema: JSONSchema
        /// Whether the object's `required` lists it.
        var required: Bool
    }

    /// The kinds of value a schema allows.
    enum Kind: Equatable {
        case object, array, integer, number, boolean, string, unknown
    }

    /// The kind.
    var kind: Kind
    /// The properties, in document order (objects; for `oneOf`/`anyOf`, every member's, none required).
    var properties: [Property] = []
    /// The element schema (arrays).
    var items: JSONSchema?
    /// The `$ref` name the schema came from (`Pet` for `#/components/schemas/Pet`), when it did.
    var referenceName: String?
    /// The schema's `format` (`date-time`, `uri`, `int64`…).
    var format: String?
    /// The schema with references followed (for its constraints).
    var schema: JSONSchema?
}

/// Follows references and merges compositions against one document's components, with a depth
/// limit so that recursive schemas (a comment with replies that are comments) end.
struct SchemaShapes {
    let components: OpenAPI.Components

    /// The shape of `schema`.
    func shape(of schema: JSONSchema, depth: Int = 0) -> SchemaShape {
        var referenceName: String?
        var current = schema
        // References to references (at most a few in real documents; 16 guards a cycle).
        for _ in 0..<16 {
            guard case .reference(let reference, _) = current.value else { break }
            referenceName = referenceName ?? reference.name
            guard let target = components[current], target != current else {
                return SchemaShape(kind: .unknown, referenceName: referenceName)
            }
            current = target
        }
        var shape = resolvedShape(of: current, depth: depth)
        shape.referenceName = shape.referenceName ?? referenceName
        shape.schema = current
        return shape
    }

    private func resolvedShape(of schema: JSONSchema, depth: Int) -> SchemaShape {
        switch schema.value {
        case .object(_, let object):
            let required = Set(object.requiredProperties)
            return SchemaShape(
                kind: .object,
                properties: object.properties.map {
                    SchemaShape.Property(name: $0.key, schema: $0.value, required: required.contains($0.key))
                })
        case .array(_, let array):
            return SchemaShape(kind: .array, items: array.items)
        case .integer:
            return SchemaShape(kind: .integer, format: schema.formatString)
        case .number:
            return SchemaShape(kind: .number, format: schema.formatString)
        case .boolean:
            return SchemaShape(kind: .boolean)
        case .string:
            return SchemaShape(kind: .string, format: schema.formatString)
        case .all(let members, _):
            return merged(members, depth: depth, required: true)
        case .one(let members, _), .any(let members, _):
            return merged(members, depth: depth, required: false)
        case .reference:
            return shape(of: schema, depth: depth + 1)
        case .null, .not, .fragment:
            return SchemaShape(kind: .unknown)
        }
    }

    /// `allOf` (properties of every member, required as each says) or `oneOf`/`anyOf` (properties of
    /// any member, none required); members of one scalar kind stay that kind.
    private func merged(_ members: [JSONSchema], depth: Int, required: Bool) -> SchemaShape {
        guard depth < 8 else { return SchemaShape(kind: .unknown) }
        let shapes = members.map { shape(of: $0, depth: depth + 1) }.filter { $0.kind != .unknown }
        guard let first = shapes.first else { return SchemaShape(kind: .unknown) }
        guard shapes.allSatisfy({ $0.kind == first.kind }) else { return SchemaShape(kind: .unknown) }
        guard first.kind == .object else { return first }
        var merged = SchemaShape(kind: .object, referenceName: shapes.count == 1 ? first.referenceName : nil)
        for shape in shapes {
            for property in shape.properties {
                if let index = merged.properties.firstIndex(where: { $0.name == property.name }) {
                    merged.properties[index].required = merged.properties[index].required || (required && property.required)
                } else {
                    merged.properties.append(
                        SchemaShape.Property(name: property.name, schema: property.schema, required: required && property.required))
                }
            }
        }
        return merged
    }
}

extension AnyCodable {
    /// The value as Reform's ``Value`` (objects keep their keys sorted: AnyCodable holds a
    /// dictionary).
    var reformValue: Value { Self.reformValue(of: value) }

    private static func reformValue(of value: Any) -> Value {
        switch value {
        case let b as Bool: return .bool(b)
        case let i as Int: return .int(i)
        case let d as Double: return d.rounded() == d && abs(d) < 1e15 ? .int(Int(d)) : .double(d)
        case let s as String: return .string(s)
        case let array as [Any]: return .array(array.map(reformValue(of:)))
        case let object as [String: Any]:
            var result = Object()
            for key in object.keys.sorted() { result.appendNew(key: key, value: object[key].map(reformValue(of:)) ?? .null) }
            return .object(result)
        default: return .null
        }
    }
}
