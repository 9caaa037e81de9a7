import ArgumentParser
import ReformEngine
import ReformTooling
import ReformYAML

/// `reform validate`: check pipeline files (and test files, `NAME.test.yaml`) completely without
/// running them.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipelines and test files: every error as file:line:column, exit 0 when all are valid.",
        discussion: """
            A file named NAME.test.yaml is checked as a test file: its structure, that the pipeline \
            it tests exists, and that each test's run is one the pipeline has. So \
            'reform validate Pipelines/*.yaml' checks pipelines and their tests together.
            """)

    @Argument(
        help: "Pipeline files and test files (NAME.test.yaml); - reads a pipeline from standard input.",
        completion: .file(extensions: ["yaml", "yml"]))
    var pipelines: [String]

    @OptionGroup var load: LoadOptions

    @Flag(name: .shortAndLong, help: "Print nothing for valid files.")
    var quiet = false

    func run() throws {
        var failed = false
        for path in pipelines {
            do {
                if TestDiscovery.isTestFile(path) {
                    try validateTestFile(path)
                    continue
                }
                let pipeline = try path == "-" ? loadStandardInput() : load.loader().load(path: path)
                for warning in pipeline.warnings { Terminal.error(warning.description) }
                if !quiet {
                    print(
                        "\(path == "-" ? "<stdin>" : path): ok (\(counted(pipeline.managers.count, "manager")), "
                            + "\(counted(pipeline.reformers.count, "reformer")), \(counted(pipeline.runs.count, "run")))"
                    )
                }
            } catch {
                Terminal.error(error.description)
                failed = true
            }
        }
        if failed { throw ExitCode(ExitStatus.invalid.rawValue) }
    }

    /// `1 run`, `3 runs`, `0 reformers`.
    private func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// The pipeline piped in: `<stdin>` in messages, its relative paths relative to the working folder.
    private func loadStandardInput() throws(PipelineLoadError) -> Pipeline {
        let loader = load.loader()
        let bytes: [UInt8]
        // No more than the size limit plus one byte: an endless `validate -` is refused there.
        do { bytes = try FilePaths.readStandardInput(limit: loader.limits.maxInputBytes) } catch {
            throw PipelineLoadError(
                diagnostics: [Diagnostic(file: "<stdin>", location: SourceLocation(line: 1, column: 1), message: error.description)],
                source: nil)
        }
        return try loader.load(bytes: bytes, file: "<stdin>", folder: ".")
    }

    /// Checks a test file: its keys and values, then what it asks of the pipeline it tests.
    private func validateTestFile(_ path: String) throws(PipelineLoadError) {
        let file = try PipelineTestLoader(environment: load.environment, allowOutsidePaths: load.allowOutsidePaths).load(path: path)
        let problems: [Diagnostic]
        if !FilePaths.isFile(file.pipeline) {
            problems = file.problems(with: nil)
        } else if let pipeline = try? load.loader().load(path: file.pipeline) {
            problems = file.problems(with: pipeline)
        } else {
            // Its own errors are the pipeline's to report; here, one line saying where to look.
            problems = [
                Diagnostic(
                    file: path, location: file.pipelineLocation ?? SourceLocation(line: 1, column: 1),
                    message: "the pipeline this file tests, \(file.pipeline), does not load; 'reform validate \(file.pipeline)' shows why")
            ]
        }
        if !problems.isEmpty {
            let source = (try? FilePaths.readAll(path)).map { String(decoding: $0, as: UTF8.self) }
            throw PipelineLoadError(diagnostics: problems, source: source)
        }
        if !quiet { print("\(path): ok (\(file.cases.count) tests of \(file.pipeline))") }
    }
}
