import ArgumentParser
import ReformEngine
import ReformYAML

/// Options every command that loads a pipeline takes: where its paths may lead and YAML limits.
struct LoadOptions: ParsableArguments {
    @Flag(help: "Let fixtures and plugin_paths lie outside the pipeline's folder.")
    var allowOutsidePaths = false

    @Option(help: ArgumentHelp("Deepest YAML nesting accepted in a pipeline file (default 256).", valueName: "N"))
    var yamlMaxDepth: Int?

    @Option(help: ArgumentHelp("Most nodes YAML alias expansion may add to a pipeline file (default 1000000).", valueName: "N"))
    var yamlMaxAliasNodes: Int?

    /// A loader with these options and the process's environment.
    func loader() -> PipelineLoader {
        var limits = YAMLLimits.default
        if let yamlMaxDepth { limits.maxDepth = yamlMaxDepth }
        if let yamlMaxAliasNodes { limits.maxAliasNodes = yamlMaxAliasNodes }
        return PipelineLoader(environment: Terminal.environment, limits: limits, allowOutsidePaths: allowOutsidePaths)
    }
}
