package import ReformEngine
import ReformSDK

/// What `reform plugins` lists: the built-in reformer kinds and steps, then every plugin found in
/// the search path with its options, or what to run to make it usable.
package enum PluginCatalog {
    /// One line per built-in step: its description in the pipeline format's declaration.
    static let stepSummaries = Dictionary(
        uniqueKeysWithValues: PipelineSchema.stepEntry.keys.map { ($0.name, $0.description) })

    /// The listing for plugins found in `searchPath`.
    package static func listing(_ searchPath: PluginSearchPath) -> String {
        var out = "Built-in reformers (declared under 'reformers:' in a pipeline):\n"
        out += "  mapping     keys + from:/map: — each manager's fields into constant keys\n"
        out += "  steps:      a list of built-in steps:\n"
        for name in PipelineDecoder.stepNames {
            out += "    " + name.padding(to: 10) + (stepSummaries[name] ?? "") + "\n"
        }
        out += "\nPlugins (plugin: NAME, options: {...}); searched: "
        out += searchPath.folders.isEmpty ? "nothing (no Plugins/ folder here)\n" : searchPath.folders.joined(separator: ", ") + "\n"
        let found = searchPath.discover()
        if found.isEmpty { out += "  none yet: create one with 'reform plugins new NAME'\n" }
        for plugin in found { out += describe(plugin) }
        return out
    }

    private static func describe(_ found: DiscoveredPlugin) -> String {
        var out = "  \(found.name)"
        guard let library = found.library else {
            return out + "  (not built: run 'reform plugins build \(found.name)')\n      package: \(found.package ?? "")\n"
        }
        let plugin: any ReformerPlugin
        do { plugin = try PluginLibrary.load(library, name: found.name) } catch {
            return out + "  (unusable)\n      " + error.message + "\n"
        }
        out += plugin.summary.isEmpty ? "\n" : "  \(plugin.summary)\n"
        out += "      library: \(library)\n"
        if let keys = plugin.keys { out += "      keys: \(keys.constants.joined(separator: ", "))\n" }
        if plugin.options.isEmpty { out += "      options: none\n" }
        for option in plugin.options {
            let requirement =
                option.required ? "required" : option.defaultValue.map { "default \(JSON.compactString($0))" } ?? "optional"
            out +=
                "      " + option.name.padding(to: 8) + " " + option.kind.rawValue.padding(to: 7) + " "
                + requirement.padding(to: 30) + " " + option.doc + "\n"
        }
        return out
    }
}

extension String {
    /// The string padded with spaces to at least `width` characters.
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
