import ArgumentParser
import ReformEngine
import ReformTooling
import ReformYAML

/// Options every command that loads a pipeline takes: where its paths may lead and YAML limits.
struct LoadOptions: ParsableArguments {
    /// The deepest nesting `--yaml-max-depth` may allow: the loader and the decoder recurse once
    /// per level, and far deeper files crash the stack (reliability audit D19).
    static let depthCeiling = 4_096
    /// The largest pipeline file accepted by default (``PipelineFileLimit``).
    static let defaultMaxBytes = PipelineFileLimit.defaultMaxBytes

    @Flag(help: "Let fixtures, plugin_paths and output paths lie outside the pipeline's folder.")
    var allowOutsidePaths = false

    @Option(
        name: .customLong("env-file"),
        help: ArgumentHelp(
            "Read variables for the pipeline's ${NAME}s from PATH (dotenv: NAME=value lines); the process's environment wins unless --env-file-overrides.",
            valueName: "PATH"), completion: .file())
    var envFiles: [String] = []

    @Flag(help: "Let --env-file values replace variables the process's environment already has.")
    var envFileOverrides = false

    @Option(help: ArgumentHelp("Deepest YAML nesting accepted in a pipeline file (default 256, at most 4096).", valueName: "N"))
    var yamlMaxDepth: Int?

    @Option(help: ArgumentHelp("Most nodes YAML alias expansion may add to a pipeline file (default 1000000).", valueName: "N"))
    var yamlMaxAliasNodes: Int?

    @Option(help: ArgumentHelp("Largest pipeline file accepted, in bytes (default 4194304).", valueName: "N"))
    var yamlMaxBytes: Int?

    func validate() throws {
        if let yamlMaxDepth, !(1...LoadOptions.depthCeiling).contains(yamlMaxDepth) {
            throw ValidationError("--yaml-max-depth \(yamlMaxDepth) must be between 1 and \(LoadOptions.depthCeiling)")
        }
        if let yamlMaxAliasNodes, yamlMaxAliasNodes < 0 {
            throw ValidationError("--yaml-max-alias-nodes \(yamlMaxAliasNodes) must be 0 or more")
        }
        if let yamlMaxBytes, yamlMaxBytes < 1 {
            throw ValidationError("--yaml-max-bytes \(yamlMaxBytes) must be at least 1")
        }
        do { _ = try EnvironmentFile.merging(envFiles, into: [:]) } catch { throw ValidationError(error.message) }
    }

    /// The variables `${NAME}` references read: the process's environment with the `--env-file`s'.
    var environment: [String: String] {
        do { return try EnvironmentFile.merging(envFiles, into: Terminal.environment, overriding: envFileOverrides) } catch {
            // validate() read them a moment ago: say so rather than run without their variables.
            Terminal.error("reform: warning: \(error.message); its variables are not set")
            return Terminal.environment
        }
    }

    /// A loader with these options and the process's environment.
    func loader() -> PipelineLoader {
        var limits = YAMLLimits.default
        limits.maxInputBytes = yamlMaxBytes ?? LoadOptions.defaultMaxBytes
        if let yamlMaxDepth { limits.maxDepth = yamlMaxDepth }
        if let yamlMaxAliasNodes { limits.maxAliasNodes = yamlMaxAliasNodes }
        return PipelineLoader(environment: environment, limits: limits, allowOutsidePaths: allowOutsidePaths)
    }
}
