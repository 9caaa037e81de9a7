import ArgumentParser
import ReformEngine
import ReformSDK
import ReformSystem

/// The `reform` command: a table of contents of the engine's entry points.
///
/// Exit codes (scripts rely on them):
/// - 0: done, nothing rejected
/// - 1: the run failed (a source, an input file or an output could not be used); outputs untouched
/// - 2: the pipeline (or, for `reform cat`, an input document) is invalid (`file:line:column: error: …`
///   on stderr); for `reform run` an input that cannot be read is an unusable input, exit 1
/// - 3: the run finished but rejected records (they are in the dead-letter file)
/// - 64: wrong command-line usage
@main
struct Reform: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reform",
        abstract: "Run API managers through reformer chains declared in YAML.",
        discussion: """
            Exit codes: 0 done; 1 run failed (outputs untouched); 2 invalid pipeline or input; \
            3 finished with rejected records (see the dead-letter file); 64 usage error.
            """,
        version: "reform \(ReformVersion.description)",
        subcommands: [
            InitCommand.self, StudioCommand.self, RunCommand.self, ValidateCommand.self, TestCommand.self, CatCommand.self,
            KeysCommand.self, PluginsCommand.self,
            StateCommand.self, ShowCommand.self, SchemaCommand.self,
        ]
    )

    /// Guards closed standard streams (``StandardStreams``), then parses and runs the command.
    static func main() async {
        StandardStreams.reopenClosed()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let problem = unknownCommand(in: arguments) {
            exitReporting(ValidationError(problem), arguments: arguments)
        }
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exitReporting(error, arguments: arguments)
        }
    }

    /// Exits as `error` says. A usage error (a mistyped option, a missing argument, a value out of
    /// range) under `--log-format json` is one JSON log line at level `error` with code `usage`,
    /// as every other error is then; the rest exit as the argument parser has them (help, the
    /// version, a command's own exit status after it said why).
    static func exitReporting(_ error: any Error, arguments: [String]) -> Never {
        let status = exitCode(for: error)
        if !(error is ExitCode), status != .success, wantsJSONLogs(arguments) {
            Terminal.write(
                StandardErrorLogHandler.jsonLine(
                    level: "error", message: message(for: error), fields: ["code": "usage", "exit_status": .int(Int(status.rawValue))]))
            ReformSystem.exit(status.rawValue)
        }
        exit(withError: error)
    }

    /// Whether `arguments` ask for JSON logs (`--log-format json` or `--log-format=json`).
    static func wantsJSONLogs(_ arguments: [String]) -> Bool {
        arguments.contains("--log-format=json") || zip(arguments, arguments.dropFirst()).contains { $0 == "--log-format" && $1 == "json" }
    }

    /// What is wrong when the first argument is meant as a command but names none (`reform rn`
    /// would otherwise say `2 unexpected arguments`): the closest command, and the choices.
    static func unknownCommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0.configuration.commandName ?? "" }
        guard !names.contains(first), first != "help" else { return nil }
        let hint = Suggestions.hint(for: first, in: names)
        return "unknown command '\(first)'" + (hint.isEmpty ? "." : hint) + " Choose one of: \(names.joined(separator: ", "))"
    }
}
