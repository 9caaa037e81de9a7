import ArgumentParser
import ReformEngine
import ReformYAML

/// `reform validate`: check pipeline files completely without running them.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipelines: every error as file:line:column, exit 0 when all are valid.")

    @Argument(help: "Pipeline files.")
    var pipelines: [String]

    @OptionGroup var load: LoadOptions

    @Flag(name: .shortAndLong, help: "Print nothing for valid files.")
    var quiet = false

    func run() throws {
        var failed = false
        for path in pipelines {
            do {
                let pipeline = try load.loader().load(path: path)
                for warning in pipeline.warnings { Terminal.error(warning.description) }
                if !quiet {
                    print(
                        "\(path): ok (\(pipeline.managers.count) managers, \(pipeline.reformers.count) reformers, \(pipeline.runs.count) runs)"
                    )
                }
            } catch {
                Terminal.error(error.description)
                failed = true
            }
        }
        if failed { throw ExitCode(ExitStatus.invalid.rawValue) }
    }
}
