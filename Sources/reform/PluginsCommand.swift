import ArgumentParser
import ReformEngine
import ReformSDK
import ReformTooling

/// `reform plugins`: list built-in steps and plugins, scaffold a plugin, build plugins.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List built-in steps and reformer plugins, create a plugin package, build plugins.",
        discussion: """
            Plugins are looked for in a pipeline's plugin_paths, then \(PluginSearchPath.environmentVariable) \
            (folders separated by ':'), then Plugins/ here, then lib/reform/plugins beside this program's bin/ \
            (a release bundle's plugins).
            """,
        subcommands: [PluginsListCommand.self, PluginsNewCommand.self, PluginsBuildCommand.self],
        defaultSubcommand: PluginsListCommand.self)
}

/// Where the plugin commands look: `--path` folders, `REFORM_PLUGIN_PATH`, `Plugins/` here, the bundle's plugins.
struct PluginPathOptions: ParsableArguments {
    @Option(name: .customLong("path"), help: ArgumentHelp("Another folder of plugins (repeatable).", valueName: "DIR"))
    var paths: [String] = []

    var searchPath: PluginSearchPath {
        PluginSearchPath(explicit: paths, environment: Terminal.environment)
    }
}

/// `reform plugins [list]`.
struct PluginsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List built-in steps and every plugin found, with its options.")

    @OptionGroup var paths: PluginPathOptions

    @Flag(help: "Print each plugin's options as a JSON Schema, by plugin name, instead of the listing.")
    var schema = false

    func run() {
        guard schema else { return print(PluginCatalog.listing(paths.searchPath), terminator: "") }
        var out = Object()
        for plugin in PluginOptionsSchema.schemas(in: paths.searchPath) { out[plugin.name] = plugin.schema }
        print(JSON.prettyString(.object(out)))
    }
}

/// `reform plugins build [NAME]`.
struct PluginsBuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build", abstract: "Build one plugin package, or every one found (swift build --package-path).")

    @Argument(help: "The plugin to build; every plugin package found when omitted.")
    var name: String?

    @Option(name: .shortAndLong, help: "debug or release.")
    var configuration: PluginBuilder.Configuration = .debug

    @Flag(help: "Also run each plugin's tests (its conformance tests).")
    var test = false

    @OptionGroup var paths: PluginPathOptions

    func run() throws {
        let packages = paths.searchPath.discover().filter { $0.package != nil && (name == nil || $0.name == name) }
        if packages.isEmpty {
            Terminal.error(
                name.map {
                    "reform: no plugin package '\($0)' in \(paths.searchPath.folders.joined(separator: ", ")); create it with 'reform plugins new \($0)'"
                }
                    ?? "reform: no plugin packages in \(paths.searchPath.folders.joined(separator: ", "))")
            throw ExitCode(ExitStatus.runFailed.rawValue)
        }
        for plugin in packages {
            guard let package = plugin.package else { continue }
            let status = PluginBuilder.build(package: package, configuration: configuration, test: test)
            if status != 0 {
                Terminal.error("reform: building plugin '\(plugin.name)' failed (exit \(status)); see the compiler's messages above")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
        }
    }
}

extension PluginBuilder.Configuration: ExpressibleByArgument {}
