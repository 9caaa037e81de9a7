import OpenAPIKit

/// Where a body's records are and which scalar fields its envelope has: the same rules for a
/// body an OpenAPI document declares (`reform init --openapi`) and one a live GET returned
/// (`reform init --url`, through the schema inferred from it).
extension SchemaShapes {
    /// Where a body's records are: a bare array, or the array field of an envelope. An object is
    /// an envelope when it is not itself a resource (no `id`) and either names its array as
    /// envelopes do (`data`, `items`, `results`, `Resources`…) or has at most eight fields and one
    /// array of objects; an array two deep is taken under a parent named as envelopes name one
    /// (`data.items`, `_embedded.orders`) or in an envelope of three fields at most. Arrays of
    /// scalars are records only under such a name.
    func records(in body: SchemaShape) -> (path: String?, item: JSONSchema?, comment: String?)? {
        if body.kind == .array { return (nil, body.items, nil) }
        guard body.kind == .object, !body.properties.contains(where: { ["id", "uuid"].contains($0.name.lowercased()) }) else { return nil }
        let preferred = [
            "data", "items", "results", "records", "entries", "values", "value", "nodes", "list", "elements", "objects", "rows", "hits",
            "resources",
        ]
        let parents = ["data", "result", "results", "response", "payload", "body", "content", "embedded", "_embedded", "page"]
        var candidates: [(path: String, item: JSONSchema?, ofObjects: Bool)] = []
        func add(_ path: String, _ shape: SchemaShape) {
            let element = shape.items.map { self.shape(of: $0).kind } ?? .unknown
            candidates.append((path, shape.items, element == .object || element == .unknown))
        }
        for property in body.properties {
            let shape = self.shape(of: property.schema)
            let segment = Naming.pathSegment(property.name)
            if shape.kind == .array { add(segment, shape) }
            if shape.kind == .object, body.properties.count <= 3 || parents.contains(property.name.lowercased()) {
                for nested in shape.properties {
                    let inner = self.shape(of: nested.schema)
                    if inner.kind == .array { add(segment + "." + Naming.pathSegment(nested.name), inner) }
                }
            }
        }
        func lastName(_ path: String) -> String { path.split(separator: ".").last.map { $0.lowercased() } ?? "" }
        let named =
            preferred.lazy.compactMap { name in candidates.first { lastName($0.path) == name && $0.ofObjects } }.first
            ?? preferred.lazy.compactMap { name in candidates.first { lastName($0.path) == name } }.first
        let ofObjects = candidates.filter(\.ofObjects)
        guard let chosen = named ?? (body.properties.count <= 8 && ofObjects.count == 1 ? ofObjects.first : nil) else { return nil }
        let others = candidates.filter { $0.path != chosen.path }.map(\.path)
        let comment = others.isEmpty ? nil : "also arrays: \(others.joined(separator: ", "))"
        return (chosen.path, chosen.item, comment)
    }

    /// The envelope's scalar fields, one and two deep (`next_cursor`, `meta.next`), for paging.
    func envelopeFields(of body: SchemaShape) -> [(path: String, isText: Bool)] {
        var fields: [(path: String, isText: Bool)] = []
        func walk(_ shape: SchemaShape, prefix: String, depth: Int) {
            for property in shape.properties {
                let inner = self.shape(of: property.schema)
                let path = prefix + Naming.pathSegment(property.name)
                switch inner.kind {
                case .object where depth < 2: walk(inner, prefix: path + ".", depth: depth + 1)
                case .string, .unknown: fields.append((path, true))
                case .integer, .number: fields.append((path, false))
                default: break
                }
            }
        }
        walk(body, prefix: "", depth: 0)
        return fields
    }
}
