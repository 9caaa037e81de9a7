import OpenAPIKit
import ReformSDK

/// A reformer's keys from a record schema: each scalar property a key, a nested object's scalar
/// properties dotted paths (`owner.login` → `owner_login`), an array of scalars joined, an array of
/// objects its elements' `name` (or `id`, `login`, `key`…) joined, or counted when they have none.
/// A property the schema does not require, or allows to be null, is read as optional.
struct RecordKeys {
    /// `short name: constant`, in property order.
    var constants = Object()
    /// `short name: rule` for the manager's `from:`.
    var rules: [(key: String, rule: Value)] = []
    /// What was left out, for a comment.
    var notes: [String] = []

    /// The most keys one reformer gets; a wider record's other properties are left out, and said so.
    static let maxKeys = 150
    /// Fields of an array's objects that name an element, in the order they are preferred.
    static let elementNames = ["name", "login", "key", "slug", "title", "id", "label", "value", "code"]

    /// The keys of records shaped `item`; constants are `k{prefix}{schemaName}Key{Field}`, so
    /// reformers of one schema share them.
    static func make(from item: SchemaShape?, shapes: SchemaShapes, prefix: String, schemaName: String) -> RecordKeys {
        var keys = RecordKeys()
        var taken: Set<String> = []
        guard let item, item.kind == .object, !item.properties.isEmpty else {
            keys.add(
                short: "value", path: ".", optional: false, array: nil, prefix: prefix, schemaName: schemaName, taken: &taken)
            keys.notes.append("the records' schema declares no properties: each record is kept whole as 'value'")
            return keys
        }
        var shortTaken: Set<String> = []
        var deeper = 0
        for property in item.properties {
            let shape = shapes.shape(of: property.schema)
            let optional = !property.required || property.schema.nullable || (shape.schema?.nullable ?? false)
            let segment = Naming.pathSegment(property.name)
            switch shape.kind {
            case .object where !shape.properties.isEmpty:
                for nested in shape.properties {
                    let inner = shapes.shape(of: nested.schema)
                    guard inner.kind != .object, inner.kind != .array else {
                        deeper += 1
                        continue
                    }
                    let nestedOptional = optional || !nested.required || nested.schema.nullable || (inner.schema?.nullable ?? false)
                    keys.add(
                        short: Naming.unique(Naming.snake(property.name + "_" + nested.name), in: &shortTaken),
                        path: segment + "." + Naming.pathSegment(nested.name), optional: nestedOptional, array: nil, prefix: prefix,
                        schemaName: schemaName, taken: &taken)
                }
            case .array:
                let element = shape.items.map { shapes.shape(of: $0) }
                if let element, element.kind == .object {
                    if let field = elementNames.first(where: { name in element.properties.contains { $0.name == name } }) {
                        keys.add(
                            short: Naming.unique(Naming.snake(property.name + "_" + field), in: &shortTaken), path: "\(segment)[].\(field)",
                            optional: optional, array: "join", prefix: prefix, schemaName: schemaName, taken: &taken)
                    } else {
                        keys.add(
                            short: Naming.unique(Naming.snake(property.name + "_count"), in: &shortTaken), path: segment,
                            optional: optional,
                            array: "count", prefix: prefix, schemaName: schemaName, taken: &taken)
                    }
                } else {
                    keys.add(
                        short: Naming.unique(Naming.snake(property.name), in: &shortTaken), path: segment, optional: optional,
                        array: element?.kind == .array ? "count" : "join", prefix: prefix, schemaName: schemaName, taken: &taken)
                }
            default:
                keys.add(
                    short: Naming.unique(Naming.snake(property.name), in: &shortTaken), path: segment, optional: optional, array: nil,
                    prefix: prefix, schemaName: schemaName, taken: &taken)
            }
        }
        if deeper > 0 {
            keys.notes.append(
                "\(deeper) field\(deeper == 1 ? "" : "s") nested more than two deep left out; read them with a path like a.b.c")
        }
        if keys.rules.count > maxKeys {
            keys.notes.append("the records have \(keys.rules.count) fields; the first \(maxKeys) are keys, add others as you need them")
            keys.rules = Array(keys.rules.prefix(maxKeys))
            var kept = Object()
            for member in keys.constants.members.prefix(maxKeys) { kept.appendNew(key: member.key, value: member.value) }
            keys.constants = kept
        }
        return keys
    }

    /// Adds the key `short` reading `path`; `array` is the `array:` operation for an array.
    private mutating func add(
        short: String, path: String, optional: Bool, array: String?, prefix: String, schemaName: String, taken: inout Set<String>
    ) {
        let constant = Naming.unique("k\(prefix)\(schemaName)Key\(Naming.pascal(short))", in: &taken)
        constants.appendNew(key: short, value: .string(constant))
        if let array {
            var rule: Object = ["path": .string(path), "array": .string(array)]
            if optional { rule.appendNew(key: "optional", value: true) }
            rules.append((short, .object(rule)))
        } else {
            rules.append((short, .string(optional && path != "." ? path + "?" : path)))
        }
    }
}
