import ArgumentParser
import ReformEngine

/// `reform keys`: the constant keys a pipeline's reformers emit.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List the constant keys of a pipeline's reformers, or print them as Swift constants.")

    @Argument(help: "The pipeline file.")
    var pipeline: String

    @Flag(help: "Print Swift declarations of the constants.")
    var swift = false

    func run() throws {
        let loaded: Pipeline
        do { loaded = try PipelineLoader(environment: Terminal.environment).load(path: pipeline) } catch {
            Terminal.error(error.description)
            throw ExitCode(ExitStatus.invalid.rawValue)
        }
        print(swift ? KeyConstants.swiftSource(loaded) : KeyConstants.listing(loaded), terminator: "")
    }
}
