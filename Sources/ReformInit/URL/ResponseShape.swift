import OpenAPIKit
import ReformSDK
import ReformTooling
import ReformYAML

/// What a live response looks like, as the schema `reform schema --records` infers from values
/// (``RecordSchema``), read through the same ``SchemaShapes`` rules `--openapi` applies to a
/// declared schema: where the records are, the envelope's fields, the records' keys.
struct ResponseShape {
    /// The shapes (no components: an inferred schema has no references).
    let shapes = SchemaShapes(components: .noComponents)

    /// The shape of everything in `values` together (one body, or the records of a page).
    func shape(of values: [Value]) -> SchemaShape {
        var inferred = RecordSchema()
        for value in values { inferred.add(value) }
        return shapes.shape(of: ResponseShape.jsonSchema(inferred.schema))
    }

    /// `schema` (a JSON Schema as a value) as OpenAPIKit reads it. A place that held values of
    /// several kinds (an object in one record, a string in another) is any value there.
    static func jsonSchema(_ schema: Value) -> JSONSchema {
        // Through the located-node decoder, which keeps the properties in the order they came.
        let node = YAMLNode(simplified(schema), location: SourceLocation(line: 0, column: 0))
        return (try? YAMLNodeDecoder().decode(JSONSchema.self, from: node)) ?? .fragment(.init())
    }

    /// `schema` with each `type` list of two kinds or more (null aside) removed, properties and
    /// items simplified the same way.
    private static func simplified(_ schema: Value) -> Value {
        guard var object = schema.objectValue else { return schema }
        if let types = object["type"]?.arrayValue {
            let kinds = types.filter { $0 != "null" }
            object["type"] = kinds.count == 1 ? (types.count > 1 ? .array([kinds[0], "null"]) : kinds[0]) : nil
            if kinds.count != 1 {
                object["properties"] = nil
                object["items"] = nil
                object["required"] = nil
            }
        }
        if let properties = object["properties"]?.objectValue {
            var simplifiedProperties = Object()
            for member in properties.members { simplifiedProperties.appendNew(key: member.key, value: simplified(member.value)) }
            object["properties"] = .object(simplifiedProperties)
        }
        if let items = object["items"] { object["items"] = simplified(items) }
        return .object(object)
    }
}
