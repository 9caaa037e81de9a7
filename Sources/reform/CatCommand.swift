import ArgumentParser
import ReformEngine
import ReformTooling

/// `reform cat`: read JSON, NDJSON or YAML and write it back converted.
struct CatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract:
            "Read JSON, NDJSON or YAML files (or - for stdin), or a table's rows (sqlite:PATH#TABLE, postgres://HOST/DB#TABLE), and write them as ndjson, json, yaml or a table."
    )

    @Option(help: "The notation to write: ndjson, json, yaml, table.", completion: .list(["ndjson", "json", "yaml", "table"]))
    var to: String = "json"

    @Argument(
        help: "Files to read; - is standard input; sqlite:PATH#TABLE or postgres://HOST/DB#TABLE reads a table's rows.", completion: .file()
    )
    var files: [String] = ["-"]

    func validate() throws {
        if DocumentConverter.Target(rawValue: to) == nil {
            throw ValidationError(
                "unknown target '\(to)'; expected one of: \(DocumentConverter.Target.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        guard let target = DocumentConverter.Target(rawValue: to) else { return }
        var converter = DocumentConverter(
            target: target, output: .standardOutput(), colour: ColourMode.auto.isEnabledForStandardOutput(), maxWidth: Terminal.width)
        var failed = false
        do {
            for file in files {
                for problem in try converter.convert(path: file) {
                    Terminal.error(problem)
                    failed = true
                }
            }
            try converter.finish()
        } catch {
            Terminal.error("reform: error: \(error.description)")
            throw ExitCode(ExitStatus.runFailed.rawValue)
        }
        if failed { throw ExitCode(ExitStatus.invalid.rawValue) }
    }
}
