package import ReformEngine
package import ReformSDK

/// JSON Schemas of plugins' `options:`, from the options each plugin declares (``PluginOption``),
/// so editors complete a plugin reformer's options as they complete the rest of a pipeline.
package enum PluginOptionsSchema {
    /// The schema of `plugin`'s options: its declared names, types, defaults and docs; no others.
    package static func schema(of plugin: any ReformerPlugin) -> Value {
        var properties = Object()
        for option in plugin.options {
            var property = kindSchema(option.kind)
            property["description"] = .string(option.doc)
            if let value = option.defaultValue { property["default"] = value }
            properties[option.name] = .object(property)
        }
        var out: Object = [
            "type": "object", "description": .string("Options of the \(plugin.name) plugin. \(plugin.summary)"),
            "properties": .object(properties), "additionalProperties": false,
        ]
        let required = plugin.options.filter(\.required).map { Value.string($0.name) }
        if !required.isEmpty { out["required"] = .array(required) }
        return .object(out)
    }

    /// Every usable plugin in `searchPath` by name, with its options schema; plugins that are not
    /// built or cannot be loaded are left out (`reform plugins` says why).
    package static func schemas(in searchPath: PluginSearchPath) -> [(name: String, schema: Value)] {
        searchPath.discover().compactMap { found in
            guard let library = found.library, let plugin = try? PluginLibrary.load(library, name: found.name) else { return nil }
            return (found.name, schema(of: plugin))
        }
    }

    /// The pipeline schema with each plugin's options schema applied where `plugin:` names it.
    package static func pipelineSchema(with plugins: [(name: String, schema: Value)]) -> Value {
        var document = JSONSchemaDocument.render(PipelineSchema.pipeline, title: "Reform pipeline")
        guard !plugins.isEmpty, case .object(var top) = document, case .object(var defs)? = top["$defs"],
            case .object(var reformer)? = defs["reformer"]
        else { return document }
        reformer["allOf"] = .array(
            plugins.map { plugin -> Value in
                [
                    "if": ["properties": ["plugin": ["const": .string(plugin.name)]], "required": ["plugin"]],
                    "then": ["properties": ["options": plugin.schema]],
                ]
            })
        defs["reformer"] = .object(reformer)
        top["$defs"] = .object(defs)
        document = .object(top)
        return document
    }

    private static func kindSchema(_ kind: PluginOption.Kind) -> Object {
        switch kind {
        case .string: ["type": "string"]
        case .int: ["type": "integer"]
        case .double: ["type": "number"]
        case .bool: ["type": "boolean"]
        case .strings: ["type": "array", "items": ["type": "string"]]
        case .object: ["type": "object"]
        case .any: Object()
        // A kind a newer SDK adds: any value, which the engine's own check still sees.
        @unknown default: Object()
        }
    }
}
