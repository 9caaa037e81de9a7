import ArgumentParser
import ReformEngine
import ReformSDK
import ReformTooling

/// `reform schema`: the JSON Schema of pipeline files (or, with `--tests`, of test files) that
/// editors complete and check YAML with; with `--records PIPELINE`, the schema inferred from the
/// raw records a pipeline's managers land.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract:
            "Print the JSON Schema (draft 2020-12) of pipeline files, of test files with --tests, or of landed records with --records.",
        discussion: """
            Editors with the YAML language server use it through a first line such as \
            '# yaml-language-server: $schema=../schema/pipeline.schema.json'. The schema is made from the \
            declarations the loader checks keys against, so it accepts what 'reform validate' accepts \
            (values are checked further by validate). --plugins adds the options of every plugin found.

            --records PIPELINE lands the run's records as 'reform run' does (its fixtures, or the live APIs \
            with --live, the first 100 records of each manager unless --limit says otherwise), writes no output \
            and no state, and prints the schema of what each manager landed, before any reformer: every type a \
            key's values had, nested objects and arrays, 'required' for the keys every record had, a 'format' \
            for strings that are all dates or date-times. With one manager (--manager, or a run of one) it is \
            that manager's schema; with several, each is under '$defs' by its name.
            """)

    @Flag(help: "The schema of test files (NAME.test.yaml) instead of pipelines.")
    var tests = false

    @Flag(help: "Describe the options of the plugins found (as 'reform plugins' lists them).")
    var plugins = false

    @OptionGroup var paths: PluginPathOptions

    @Flag(help: "Infer the schema of the raw records PIPELINE's managers land.")
    var records = false

    @Argument(help: "With --records: the pipeline file.", completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Option(help: "With --records: the manager whose records to describe (repeatable; default: each of the run's).")
    var manager: [String] = []

    @OptionGroup var landing: LandingOptions

    func validate() throws {
        if tests && plugins { throw ValidationError("--plugins describes pipelines' plugin options; leave it out with --tests") }
        if records {
            guard pipeline != nil else {
                throw ValidationError("--records needs the pipeline file, as in 'reform schema --records listings.yaml'")
            }
            if tests || plugins { throw ValidationError("--records describes landed records; leave out --tests and --plugins") }
        } else {
            if let pipeline { throw ValidationError("'\(pipeline)': give a pipeline file with --records, to describe its landed records") }
            if !manager.isEmpty || landing.isGiven {
                throw ValidationError("--manager, --run, --param, --input, --live, --env and --limit go with --records")
            }
        }
    }

    func run() throws {
        if records, let pipeline { return try describeRecords(of: pipeline) }
        if tests {
            print(JSONSchemaDocument.text(TestFileSchema.file, title: "Reform pipeline tests"), terminator: "")
        } else if plugins {
            let schema = PluginOptionsSchema.pipelineSchema(with: PluginOptionsSchema.schemas(in: paths.searchPath))
            print(JSON.prettyString(schema))
        } else {
            print(JSONSchemaDocument.text(PipelineSchema.pipeline, title: "Reform pipeline"), terminator: "")
        }
    }

    /// Lands `path`'s run and prints the schema of its managers' records; counts go to standard error.
    private func describeRecords(of path: String) throws {
        let loaded: Pipeline
        do { loaded = try landing.load.loader().load(path: path) } catch {
            Terminal.error(error.description)
            throw ExitCode(ExitStatus.invalid.rawValue)
        }
        let inferred: LandedRecordSchemas
        do { inferred = try LandedRecordSchemas.infer(loaded, options: landing.options, managers: manager) } catch {
            Terminal.error("reform: \(error.description)")
            throw ExitCode(
                error.code == .unknownManager || error.code == .noSuchRun ? ExitStatus.usage.rawValue : ExitStatus.runFailed.rawValue)
        }
        print(JSON.prettyString(inferred.document(pipeline: loaded)))
        let counts = inferred.managers.map { "\($0.records) record\($0.records == 1 ? "" : "s") of '\($0.name)'" }
        let rejected = inferred.summary.rejected
        Terminal.error(
            "reform: schema of \(counts.joined(separator: ", ")) (run '\(inferred.run)', \(landing.source))"
                + (rejected > 0
                    ? "; \(rejected) record\(rejected == 1 ? "" : "s") could not land (not JSON or too large) and are left out" : ""))
        for empty in inferred.managers where empty.records == 0 {
            Terminal.error("reform: warning: '\(empty.name)' landed no records, so its schema says nothing about them")
        }
    }
}

/// How `reform schema --records` lands a run: which run, its params and inputs, fixtures or live.
struct LandingOptions: ParsableArguments {
    @Option(name: .customLong("run"), help: "With --records: the run to land (default: the run called 'default', else the first).")
    var runName: String?

    @Option(
        name: .customLong("param"), help: ArgumentHelp("With --records: set a parameter for every manager of the run.", valueName: "K=V"))
    var params: [String] = []

    @Option(
        name: .customLong("input"),
        help: ArgumentHelp("With --records: read a manager's records from a file instead of its fixtures.", valueName: "MANAGER=PATH"),
        completion: .file())
    var inputs: [String] = []

    @Flag(help: "With --records: call the live APIs instead of replaying fixtures.")
    var live = false

    @Option(help: "With --records and --live: the service environment whose base URLs to use.")
    var env: String?

    @Option(
        help: ArgumentHelp("With --records: land at most N records of each manager (default: 100 with --live, else all).", valueName: "N"))
    var limit: Int?

    @OptionGroup var load: LoadOptions

    /// Where the records come from, for the counts line.
    var source: String { live ? "live" : inputs.isEmpty ? "fixtures" : "--input files" }

    /// Whether any of these options was given.
    var isGiven: Bool { runName != nil || !params.isEmpty || !inputs.isEmpty || live || env != nil || limit != nil }

    func validate() throws {
        try CommandLinePair.check(params: params, inputs: inputs)
        if let limit, limit < 1 { throw ValidationError("--limit \(limit) must be at least 1") }
    }

    /// The run's options: nothing written, every record landed as a value.
    var options: RunOptions {
        var options = RunOptions()
        options.runName = runName
        options.params = CommandLinePair.params(params)
        options.inputs = CommandLinePair.files(inputs)
        options.mode = live ? .live : .replay
        options.environmentName = env
        options.environment = load.environment
        options.limit = limit ?? (live ? 100 : nil)
        options.colour = false
        return options
    }
}
