import ReformSDK
import ReformYAML

/// Loading `plugin:` reformers while the pipeline is decoded, so that `reform validate` reports a
/// missing, unbuilt or incompatible plugin and every bad option at its line and column.
extension PipelineDecoder {
    /// Where this pipeline's plugins are looked for.
    var pluginSearchPath: PluginSearchPath {
        PluginSearchPath(
            explicit: pluginPaths.map { FilePaths.resolve($0, against: folder) }, environment: context.environment, anchor: folder)
    }

    /// The loaded plugin with its checked options, and the keys its reformer emits.
    func decodePlugin(_ m: Mapping, _ what: String, declaredKeys: KeySet?, managers: [ManagerPlan]) -> (PluginPlan, KeySet?)? {
        guard let node = m["plugin"], let name = context.string(node, "'plugin' of \(what)") else { return nil }
        let plugin: any ReformerPlugin
        let library: String
        do {
            if let registered = inProcessPlugins.first(where: { $0.name == name }) {
                library = PluginPlan.inProcess
                plugin = registered
            } else {
                library = try pluginSearchPath.library(for: name)
                plugin = try PluginLibrary.load(library, name: name)
            }
        } catch {
            context.error(error.message, at: node.location)
            return nil
        }
        guard let (given, locations) = decodeOptions(m, what) else { return nil }
        let optionsAt = m.entry("options")?.keyLocation ?? node.location
        func location(of problem: PluginOptionError) -> SourceLocation {
            guard let option = problem.option, let at = locations[option] else { return optionsAt }
            return plugin.options.contains { $0.name == option } ? at.value : at.key
        }
        let problems = PluginOptions.problems(in: given, against: plugin.options)
        let names = plugin.options.map(\.name)
        for problem in problems {
            if let option = problem.option, !names.contains(option) {
                context.error(
                    "unknown option '\(option)' of plugin '\(name)'\(Suggestions.hint(for: option, in: names)) (\(what)); "
                        + (names.isEmpty ? "it takes none" : "its options: \(names.joined(separator: ", "))"),
                    at: location(of: problem))
            } else {
                context.error("\(problemText(problem, plugin: name)) (\(what))", at: location(of: problem))
            }
        }
        guard problems.isEmpty else { return nil }
        do {
            let options = try PluginOptions(checking: given, against: plugin.options)
            let made = try plugin.make(options: options)
            let emitted = made.keys ?? plugin.keys
            if let declaredKeys, let emitted, declaredKeys.constants != emitted.constants {
                context.error(
                    "\(what) declares keys \(declaredKeys.constants.joined(separator: ", ")), but plugin '\(name)' emits "
                        + "\(emitted.constants.joined(separator: ", ")); remove 'keys:' or make them the same",
                    at: m.entry("keys")?.keyLocation ?? node.location)
                return nil
            }
            var fieldsRead: [Int: [String]] = [:]
            for manager in managers { fieldsRead[manager.ref.index] = made.fieldsRead(from: manager.ref) }
            return (PluginPlan(name: name, library: library, plugin: plugin, options: options, fieldsRead: fieldsRead), emitted)
        } catch {
            context.error("\(problemText(error, plugin: name)) (\(what))", at: location(of: error))
            return nil
        }
    }

    private func problemText(_ problem: PluginOptionError, plugin: String) -> String {
        guard let option = problem.option else { return "plugin '\(plugin)': \(problem.message)" }
        return "option '\(option)' of plugin '\(plugin)' \(problem.message)"
    }

    /// The `options:` mapping as values, with the locations of each option's key and value.
    private func decodeOptions(
        _ m: Mapping, _ what: String
    ) -> (Object, [String: (key: SourceLocation, value: SourceLocation)])? {
        guard let node = m["options"] else { return (Object(), [:]) }
        guard let options = context.mapping(node, "'options' of \(what)", allowed: nil) else { return nil }
        var object = Object()
        var locations: [String: (key: SourceLocation, value: SourceLocation)] = [:]
        for entry in options.entries {
            guard let value = context.value(entry.value, "option '\(entry.key)' of \(what)") else { return nil }
            object[entry.key] = value
            locations[entry.key] = (entry.keyLocation, entry.value.location)
        }
        return (object, locations)
    }
}
