import ArgumentParser
import ReformEngine
import ReformTooling
import ReformYAML

/// `reform validate`: check pipeline files (and test files, `NAME.test.yaml`) completely without
/// running them.
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipelines and test files: every error as file:line:column, exit 0 when all are valid.",
        discussion: """
            A file named NAME.test.yaml is checked as a test file: its structure, that the pipeline \
            it tests exists, and that each test's run is one the pipeline has. So \
            'reform validate Pipelines/*.yaml' checks pipelines and their tests together.

            --check-env also checks the environment a run would meet, fetching no records: for each \
            service, that its ${...}s resolve (base URL, headers, credentials, signing secrets), then one \
            GET of its base URL (or the --check-path given for it) as a manager's request goes out \
            (headers, credentials, an OAuth2 token fetched first, interceptors), without retries. A service \
            that answers below 400, or 404 or 405, is ok; one that refuses the credentials (401, 403), fails \
            (5xx), cannot be reached or cannot be asked, is not, and the command exits 1.
            """)

    @Argument(
        help: "Pipeline files and test files (NAME.test.yaml); - reads a pipeline from standard input.",
        completion: .file(extensions: ["yaml", "yml"]))
    var pipelines: [String]

    @OptionGroup var load: LoadOptions

    @Flag(name: .shortAndLong, help: "Print nothing for valid files.")
    var quiet = false

    @Flag(help: "Also check the environment: every service's ${...}s resolve, its base URL answers and takes its credentials.")
    var checkEnv = false

    @Option(help: ArgumentHelp("The environment whose base URLs --check-env requests (default: default).", valueName: "NAME"))
    var env: String?

    @Option(
        name: .customLong("check-path"),
        help: ArgumentHelp(
            "The path --check-env requests of a service instead of its base URL, as in api=/user (repeatable).",
            valueName: "SERVICE=PATH"))
    var checkPaths: [String] = []

    func run() async throws {
        var failed = false
        var environmentFailed = false
        var paths: [String: String] = [:]
        for entry in checkPaths {
            guard let equals = entry.firstIndex(of: "="), equals > entry.startIndex else {
                throw ValidationError("--check-path takes SERVICE=PATH, as in api=/user; got '\(entry)'")
            }
            paths[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        for path in pipelines {
            do {
                if TestDiscovery.isTestFile(path) {
                    try validateTestFile(path)
                    continue
                }
                let pipeline = try path == "-" ? loadStandardInput() : load.loader().load(path: path)
                for warning in pipeline.warnings { Terminal.error(warning.description) }
                if !quiet {
                    print("\(path == "-" ? "<stdin>" : path): ok (\(pipeline.counts))")
                }
                if checkEnv, !(await checkEnvironment(of: pipeline, paths: paths)) { environmentFailed = true }
            } catch {
                Terminal.error(error.description)
                failed = true
            }
        }
        if failed { throw ExitCode(ExitStatus.invalid.rawValue) }
        if environmentFailed { throw ExitCode(ExitStatus.runFailed.rawValue) }
    }

    /// Probes each service of `pipeline` (`--check-env`), printing one line each; whether all are
    /// healthy. A `--check-path` naming no service of the pipeline is an error.
    private func checkEnvironment(of pipeline: Pipeline, paths: [String: String]) async -> Bool {
        var healthy = true
        for name in paths.keys.sorted() where !pipeline.services.contains(where: { $0.name == name }) {
            Terminal.error(
                "reform: --check-path names service '\(name)', which the pipeline does not have (it has: "
                    + pipeline.services.map(\.name).joined(separator: ", ") + ")")
            healthy = false
        }
        // ${exec:NAME}s are asked of the pipeline's secrets command, as a live run would.
        var environment = load.environment
        do { environment = try pipeline.answeringExecSecrets(in: environment) ?? environment } catch {
            print("  FAILED: \(error.message)")
            healthy = false
        }
        for service in pipeline.services {
            let probe: ServiceProbe
            do {
                let client = try ServiceClient(service: service, environment: environment, env: env)
                probe = await client.probe(path: paths[service.name] ?? "")
            } catch {
                probe = .notSent(service.name, error.message)
            }
            print("  \(probe.isHealthy ? "ok" : "FAILED"): \(probe.summary)")
            if !probe.isHealthy { healthy = false }
        }
        if pipeline.services.isEmpty { print("  no service to check: every manager reads files or fixtures") }
        return healthy
    }

    /// `1 run`, `3 runs`, `0 reformers`.
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
