public import ArgumentParser
import ReformEngine
import ReformSDK
import ReformSystem
import ReformTooling
import ReformYAML

/// `reform run`: execute one run of a pipeline.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline: land records (fixtures by default, or --input files), reform them, write outputs.",
        discussion: """
            Paths: --input, --output, --dead-letter, --state and the outputs' 'path:' are relative to the \
            working folder; 'fixtures:' and 'plugin_paths:' are relative to the pipeline file.
            """)

    @Argument(help: "The pipeline file.", completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String

    @Option(name: .customLong("run"), help: "The run to execute (default: the run called 'default', else the first).")
    var runName: String?

    @Option(
        name: .customLong("input"),
        help: ArgumentHelp(
            "Read MANAGER's records from PATH (.ndjson, .json, .yaml, - for stdin, sqlite:DB#TABLE or postgres://HOST/DB#TABLE) instead of its fixtures.",
            valueName: "MANAGER=PATH"), completion: .custom(InputCompletion.complete))
    var inputs: [String] = []

    @Option(
        name: .customLong("tagged-input"),
        help: ArgumentHelp(
            "Read records for every manager of the run from PATH, one MANAGER<TAB>JSON line each (PATH@START:END: a byte range; - for stdin with one manager).",
            valueName: "PATH"), completion: .file())
    var taggedInputs: [String] = []

    @Flag(
        name: .customLong("tagged-stdout"),
        help:
            "Write records, dead letters and stats on standard output, one tagged line each: out<TAB>RECORD, then dead<TAB>ENTRY, then stats<TAB>STATS last (for engines that pass back only standard output)."
    )
    var taggedStdout = false

    @Option(name: .customLong("param"), help: ArgumentHelp("Set a parameter for every manager of the run.", valueName: "K=V"))
    var params: [String] = []

    @Option(help: "Output format: ndjson, json, table, csv, markdown, html.", completion: .list(OutputFormat.allCases.map(\.rawValue)))
    var format: String?

    @Option(
        name: .customLong("colour"),
        help: "Colour table rows by their style: auto (on a terminal, unless NO_COLOR is set), always, never.",
        completion: .list(ColourMode.allCases.map(\.rawValue)))
    var colour: String = ColourMode.auto.rawValue

    @Option(
        help: "Write the output to PATH (relative to the working folder, atomically) instead of standard output; - is standard output.",
        completion: .file())
    var output: String?

    /// `--output`, with `-` read as standard output (no path).
    private var outputPath: String? { output == "-" ? nil : output }

    @Flag(
        name: .customLong("csv-bom"),
        help: "Start every CSV output with the UTF-8 byte-order mark, which spreadsheet programs need to read CJK text.")
    var csvByteOrderMark = false

    @Flag(
        name: .customLong("csv-raw"),
        help:
            "Write CSV cells as they are: no ' before text starting with = + - @ tab or CR, which a file output gets so that a spreadsheet does not run it as a formula."
    )
    var csvRaw = false

    @Option(
        name: .customLong("dead-letter"),
        help:
            "Where rejected records go (default: reform-dead-letter.ndjson, created only when needed); {shard} and {pid} in it become the --shard index and the process id, so tasks of one job keep their own.",
        completion: .file())
    var deadLetter: String?

    @Option(help: "Workers for the reform chain over NDJSON inputs; output keeps input order (1: the single-core path).")
    var jobs: Int = 1

    @Option(help: "Land only the first N records of each manager.")
    var limit: Int?

    @Option(help: "Land N records of each manager picked evenly at random (the same N every run), in input order.")
    var sample: Int?

    @Option(
        help: ArgumentHelp(
            "Print counts and timings per manager and reformer step on standard error at the end, in FORMAT: json (the only one).",
            valueName: "FORMAT"),
        completion: .list(["json"]))
    var stats: String?

    @Option(
        help: ArgumentHelp(
            "Write the --stats json object to this file (atomically) instead of standard error; implies --stats json.",
            valueName: "PATH"), completion: .file())
    var statsFile: String?

    @Option(
        help: ArgumentHelp(
            "Exit 0 when at most N records were rejected (they are still in the dead-letter file and the summary), 3 above; by default any rejected record exits 3.",
            valueName: "N"))
    var maxRejects: Int?

    @Option(help: "The service environment whose base URLs to use (for --live and --record).")
    var env: String?

    @OptionGroup var load: LoadOptions

    @OptionGroup var logging: LogOptions

    @Option(help: ArgumentHelp("Largest input record (NDJSON line, element of a .json array) in bytes (default 16777216).", valueName: "N"))
    var maxRecordBytes: Int?

    /// The deepest nesting `--max-json-depth` may allow: writing a record recurses once per level,
    /// and a 30,000-deep one crashed the dead-letter writer (reliability audit D20).
    static let jsonDepthCeiling = 4_096
    /// The smallest `--sort-memory` accepted: 1 MiB.
    static let sortMemoryFloor = 1 << 20

    @Option(help: ArgumentHelp("Deepest nesting of arrays and objects in an input record (default 512, at most 4096).", valueName: "N"))
    var maxJsonDepth: Int?

    @Option(
        help: ArgumentHelp(
            "Bytes of records a sort step or sorted row shape keeps in memory before it spills to a temporary file (default 67108864, at least 1048576).",
            valueName: "N"))
    var sortMemory: Int?

    @Option(help: ArgumentHelp("Largest live response body in bytes (default 67108864).", valueName: "N"))
    var maxBodyBytes: Int?

    @Option(
        help: ArgumentHelp(
            "Which client sends http:// and https:// requests: built-in (Reform's HTTP/1.1 client, TLS over the system OpenSSL) or async-http-client (requests through a proxy always use async-http-client).",
            valueName: "CLIENT"))
    var httpClient: LiveTransport.Client?

    @Flag(help: "Call the live APIs instead of replaying fixtures.")
    var live = false

    @Flag(help: "Call the live APIs and record what comes back as fixtures.")
    var record = false

    @Flag(name: .customLong("no-cache"), help: "Do not answer requests from the managers' response caches.")
    var noCache = false

    @Flag(name: .shortAndLong, help: "Print nothing on standard error unless something fails.")
    var quiet = false

    @Option(
        help: ArgumentHelp(
            "Run only this task's share of each fan-out: the I-th of N contiguous blocks of partitions (0-based); managers that do not fan out run in shard 0 only. Shards 0..N-1 concatenated in order equal one run.",
            valueName: "I/N"))
    var shard: String?

    @Option(
        name: .customLong("partitions"),
        help: ArgumentHelp(
            "Take the partitions of a parent → child fan-out from FILE (one JSON object of its for_each parameters a line, as --list-partitions writes them) instead of landing its parents.",
            valueName: "MANAGER=FILE"))
    var partitionFiles: [String] = []

    @Flag(
        help:
            "Print how the run would execute, without running it: each manager's source and workers, and for each output which tier runs each reformer (copied or compiled on each input line's bytes, on records, on the written lines) and why nothing faster applies. With --stats json the JSON form."
    )
    var explain = false

    @Option(
        name: .customLong("list-partitions"),
        help: ArgumentHelp(
            "Land the parents of MANAGER (a parent → child fan-out), as on a first run, and print its partitions on standard output, one JSON object a line, instead of running it (for --partitions).",
            valueName: "MANAGER"))
    var listPartitions: String?

    @Flag(help: "Ignore the incremental managers' saved state: fetch everything again and replace the outputs.")
    var fullRefresh = false

    @Flag(
        help:
            "Wait for another run writing the same outputs or state file to finish, instead of stopping with exit 1 (the default, with the other run's pid)."
    )
    var waitLock = false

    @Option(
        help: ArgumentHelp(
            "The state file of incremental managers (default: .PIPELINE-NAME.reform-state.json beside the first output file, or in the working folder).",
            valueName: "PATH"), completion: .file())
    var state: String?

    @Flag(
        help:
            "Run again whenever the pipeline file, its fixtures, its --input files or its --env-files change, until Ctrl-C (a failed run waits for the next change)."
    )
    var watch = false

    func validate() throws {
        if watch {
            let once = [
                (record, "--record (it writes the fixtures it watches)"), (explain, "--explain"),
                (listPartitions != nil, "--list-partitions"),
                (inputs.contains { $0.hasSuffix("=-") } || taggedInputs.contains("-"), "standard input, which is read once"),
                (taggedStdout, "--tagged-stdout"),
            ]
            if let clash = once.first(where: \.0) { throw ValidationError("--watch runs again and again; it cannot go with \(clash.1)") }
        }
        if pipeline == "-" {
            // `reform validate -` reads one from standard input; a run needs its file's folder,
            // which its fixtures and outputs are relative to.
            throw ValidationError(
                "reform run needs the pipeline as a file ('-', standard input, has no folder for its fixtures and outputs); "
                    + "write it to a file and run that, or check it with 'reform validate -'")
        }
        for (flag, value) in [
            ("--max-record-bytes", maxRecordBytes), ("--max-json-depth", maxJsonDepth), ("--max-body-bytes", maxBodyBytes),
            ("--sort-memory", sortMemory),
        ] {
            if let value, value < 1 { throw ValidationError("\(flag) \(value) must be at least 1") }
        }
        if let sortMemory, sortMemory < RunCommand.sortMemoryFloor {
            // Below it a sort spills a run every few records, and merging that many runs took more
            // memory than the budget saved: 1 byte gave 2.1 GB (audit r2 L6).
            throw ValidationError(
                "--sort-memory \(sortMemory) must be at least \(RunCommand.sortMemoryFloor) (1 MiB): a smaller budget spills "
                    + "so many small runs that merging them takes more memory, not less")
        }
        if let maxJsonDepth, maxJsonDepth > RunCommand.jsonDepthCeiling {
            throw ValidationError("--max-json-depth \(maxJsonDepth) must be at most \(RunCommand.jsonDepthCeiling)")
        }
        if jobs < 1 || jobs > 256 {
            throw ValidationError("--jobs \(jobs) must be between 1 and 256")
        }
        if let limit, limit < 0 { throw ValidationError("--limit \(limit) must be 0 or more") }
        if let sample, sample < 0 { throw ValidationError("--sample \(sample) must be 0 or more") }
        if limit != nil && sample != nil { throw ValidationError("--limit and --sample cannot be used together; choose one") }
        if let stats, stats != "json" { throw ValidationError("--stats '\(stats)': the only stats format is json") }
        if let maxRejects, maxRejects < 0 { throw ValidationError("--max-rejects \(maxRejects) must be 0 or more") }
        if live && record {
            throw ValidationError("--live and --record: pick one (--record calls the live APIs too, and keeps what they answer)")
        }
        if ColourMode(rawValue: colour) == nil {
            throw ValidationError("--colour '\(colour)' must be one of: \(ColourMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let format {
            do { _ = try OutputFormat(parsing: format) } catch { throw ValidationError(error.description) }
        }
        if taggedStdout {
            if deadLetter != nil {
                throw ValidationError("--tagged-stdout writes the dead letters on standard output as 'dead' lines; leave out --dead-letter")
            }
            if output != nil {
                throw ValidationError("--tagged-stdout writes the output on standard output as 'out' lines; leave out --output")
            }
            if let format, (try? OutputFormat(parsing: format)) != .ndjson {
                throw ValidationError(
                    "--tagged-stdout writes one record a line: --format '\(format)' cannot be tagged; use ndjson (the default with it)")
            }
        }
        if StandardStreams.closed.contains(0), taggedInputs.contains("-") {
            throw ValidationError("--tagged-input - reads standard input, which is closed; pipe records in, or give a file")
        }
        for file in partitionFiles where !file.contains("=") {
            throw ValidationError("--partitions '\(file)' must be MANAGER=FILE, as in --partitions issues=partitions.ndjson")
        }
        try CommandLinePair.check(params: params, inputs: inputs)
        // A malformed byte range is a usage error, not a file that is missing (a file of that name is read).
        for (flag, path) in CommandLinePair.values(inputs).map({ ("--input", $0) })
            + taggedInputs.map({ ("--tagged-input", $0) })
        where !FilePaths.isFile(path) {
            if let problem = InputRange.problem(in: path) { throw ValidationError("\(flag): \(problem)") }
        }
        if let bad = RunCommand.paramNotUTF8() {
            throw ValidationError("--param value #\(bad) is not valid UTF-8; parameters are sent as UTF-8 text (check the shell's locale)")
        }
        if StandardStreams.closed.contains(0), inputs.contains(where: { $0.hasSuffix("=-") }) {
            throw ValidationError("--input MANAGER=- reads standard input, which is closed; pipe records in, or give a file")
        }
        if let shard, RunCommand.parseShard(shard) == nil {
            throw ValidationError("--shard '\(shard)' must be I/N with 0 <= I < N, as in --shard 2/8")
        }
    }

    func run() throws {
        guard watch else { return try runOnce() }
        try WatchedFiles.repeating(
            quiet: quiet,
            files: {
                WatchedFiles(
                    pipelineFile: pipeline, pipeline: try? load.loader().load(path: pipeline),
                    inputs: CommandLinePair.values(inputs), envFiles: load.envFiles)
            }, runOnce)
    }

    /// One run, with everything the command says of it.
    private func runOnce() throws {
        let reporter = RunReport(json: logging.logFormat == .json)
        let loaded: Pipeline
        do { loaded = try load.loader().load(path: pipeline) } catch {
            reporter.error(error.description, code: "invalid-pipeline", prefixed: false)
            throw ExitCode(ExitStatus.invalid.rawValue)
        }
        if !quiet {
            for warning in loaded.warnings { reporter.pipelineWarning(warning.description) }
        }
        if StandardStreams.closed.contains(1), outputPath == nil,
            loaded.run(named: runName)?.outputs.contains(where: \.writesToStandardOutput) == true
        {
            reporter.error("standard output is closed, and the run writes an output there; give --output PATH", code: "usage")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var options = RunOptions()
        options.runName = runName
        options.inputs = CommandLinePair.files(inputs)
        options.taggedInputs = taggedInputs
        options.partitionFiles = CommandLinePair.files(partitionFiles)
        options.params = CommandLinePair.params(params)
        options.format = format.flatMap { try? OutputFormat(parsing: $0) }
        options.outputPath = outputPath
        // Tasks of one job writing beside each other each keep their own dead letters.
        options.deadLetterPath = deadLetter.map { path in
            path.replacing("{shard}", with: shard.flatMap(RunCommand.parseShard).map { String($0.index) } ?? "0")
                .replacing("{pid}", with: String(getpid()))
        }
        options.csvByteOrderMark = csvByteOrderMark
        options.csvRaw = csvRaw
        options.maxWidth = Terminal.width
        if let mode = ColourMode(rawValue: colour), mode != .auto { options.colour = mode == .always }
        options.jobs = jobs
        options.limit = limit
        options.sample = sample
        options.collectsStats = stats != nil || statsFile != nil
        options.logger = logging.logger()
        // Log lines and the progress line would share standard error: a log asked for wins.
        if !quiet && Terminal.standardErrorIsTerminal && options.logger == nil {
            options.progress = ProgressLine.show
            // One screen for both streams: erase the progress line before output lands under it
            // (through a pipe too: `| head` and `| jq` print on this screen).
            if Terminal.standardOutputIsTerminal || Terminal.standardOutputIsPipe { options.beforeStandardOutput = ProgressLine.clear }
            ProgressLine.clearOnBrokenPipe()
        }
        options.mode = record ? .record : live ? .live : .replay
        options.environmentName = env
        options.environment = load.environment
        options.useCache = !noCache
        if let maxRecordBytes { options.recordLimits.maximumDocumentSize = maxRecordBytes }
        if let maxJsonDepth { options.recordLimits.maximumDepth = maxJsonDepth }
        if let maxBodyBytes { options.maxBodyBytes = maxBodyBytes }
        if let sortMemory { options.sortMemory = sortMemory }
        if let httpClient { options.httpClient = httpClient }
        options.fullRefresh = fullRefresh
        options.waitsForLock = waitLock
        options.shard = shard.flatMap(RunCommand.parseShard)
        let taggedDeadLetter = taggedStdout ? TaggedStandardOutput.deadLetterPath() : nil
        if let taggedDeadLetter {
            options.standardOutputTag = "out"
            options.format = options.format ?? .ndjson
            options.deadLetterPath = taggedDeadLetter
            options.collectsStats = true
        }
        options.statePath = state
        if let statsFile { options.alsoWrites.append((statsFile, "--stats-file")) }
        if !quiet { options.onEvent = RunCommand.describe }
        var summary: RunSummary
        Interruptions.install()
        if let listPartitions {
            try list(partitionsOf: listPartitions, runner: Runner(pipeline: loaded, options: options))
            return
        }
        if explain {
            try explain(Runner(pipeline: loaded, options: options))
            return
        }
        do { summary = try Runner(pipeline: loaded, options: options).run() } catch {
            if let taggedDeadLetter { try? TaggedStandardOutput.emitDeadLetters(from: taggedDeadLetter) }
            if let status = Interruptions.exitStatus {
                if options.progress != nil { ProgressLine.clear() }
                let kept =
                    error.deadLetter.map {
                        "; \($0.count) rejected so far kept in \(taggedDeadLetter == nil ? $0.path : "standard output ('dead' lines)")"
                    } ?? ""
                // Say only what happened: a batch or replayed run made no request, and records a
                // streamed standard output already showed stay shown.
                let toStandardOutput =
                    outputPath == nil && loaded.run(named: runName)?.outputs.contains(where: \.writesToStandardOutput) == true
                let outputs =
                    if error.keepsCheckpoint {
                        "incremental outputs keep their last checkpoint; the next run resumes there"
                    } else if toStandardOutput {
                        "what standard output already showed stays; no file output written (outputs are atomic)"
                    } else {
                        "no output written (outputs are atomic)"
                    }
                let requests = options.mode == .replay ? "" : "requests cancelled, "
                reporter.interrupted("\(requests)\(outputs)\(kept)", signal: status - 128)
                throw ExitCode(status)
            }
            if options.progress != nil { ProgressLine.clear() }
            reporter.error(error.description, code: error.code.description)
            throw ExitCode(RunCommand.exitStatus(of: error).rawValue)
        }
        if options.progress != nil { ProgressLine.clear() }
        if !quiet {
            for paging in summary.paging { reporter.paging(paging) }
            for warning in summary.warnings { reporter.warning(warning) }
        }
        for change in summary.tableChanges { reporter.notice(change) }
        if taggedDeadLetter != nil { summary.deadLetterPath = "standard output ('dead' lines)" }
        if !quiet || summary.rejected > 0 { reporter.summary(summary) }
        if let taggedDeadLetter, let stats = summary.stats {
            do {
                try TaggedStandardOutput.emitDeadLetters(from: taggedDeadLetter)
                try TaggedStandardOutput.emitStats(stats.json)
            } catch {
                Terminal.error("reform: error: --tagged-stdout: \(error)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
        }
        try report(summary.stats)
        if summary.rejected > (maxRejects ?? 0) { throw ExitCode(ExitStatus.rejected.rawValue) }
    }

    /// The exit status of a run that failed with `error`: a `--run`, `--input` or `--param`
    /// naming what the pipeline does not have is a usage error (64), as a mistyped option is;
    /// anything else is a failed run (1).
    static func exitStatus(of error: RunError) -> ExitStatus {
        [.noSuchRun, .unknownInput, .unknownParam].contains(error.code) ? .usage : .runFailed
    }

    /// Prints how `runner` would execute (`--explain`): in words, or as JSON with `--stats json`.
    private func explain(_ runner: Runner) throws {
        do {
            let plan = try runner.explain()
            if stats != nil {
                print(JSON.prettyString(plan.json))
            } else {
                print(plan.text, terminator: "")
            }
        } catch {
            Terminal.error("reform: error: \(error.description)")
            throw ExitCode(RunCommand.exitStatus(of: error).rawValue)
        }
    }

    /// Writes `stats` where `--stats json` or `--stats-file` asked.
    private func report(_ stats: RunStats?) throws {
        guard let stats, self.stats != nil || statsFile != nil else { return }
        if let statsFile {
            do { try TextFiles.write(stats.json, to: statsFile) } catch {
                Terminal.error("reform: error: the stats file: \(error)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
        } else {
            Terminal.error(stats.json)
        }
    }

    /// Prints the partitions of `manager` one JSON object a line (``Runner/partitions(of:)``); the
    /// exit status is a run's: 3 when parent records made no partition (they are dead letters),
    /// more of them than `--max-rejects`; `--stats json` and `--stats-file` report the parents'
    /// landing.
    private func list(partitionsOf manager: String, runner: Runner) throws {
        let listing: Runner.PartitionListing
        do { listing = try runner.partitions(of: manager) } catch {
            Terminal.error("reform: error: \(error.description)")
            throw ExitCode(RunCommand.exitStatus(of: error).rawValue)
        }
        var text = ""
        for partition in listing.partitions { text += JSON.compactString(partition.object) + "\n" }
        // (A closed standard output was pointed at /dev/null: the list would be lost without a word.)
        guard !StandardStreams.closed.contains(1), StandardStreams.writeOutput(Array(text.utf8)) else {
            Terminal.error("reform: error: cannot write the partitions to standard output: \(String(cString: strerror(errno)))")
            throw ExitCode(ExitStatus.runFailed.rawValue)
        }
        if !quiet || listing.summary.rejected > 0 {
            let landed = listing.summary.landed.map { "\($0.count) records of \($0.manager)" }.joined(separator: ", ")
            let rejected =
                listing.summary.rejected == 0
                ? "" : "; \(listing.summary.rejected) rejected → \(listing.summary.deadLetterPath ?? "the dead-letter file")"
            Terminal.error("reform: \(listing.partitions.count) partitions of '\(manager)' from \(landed)\(rejected)")
        }
        try report(listing.summary.stats)
        if listing.summary.rejected > (maxRejects ?? 0) { throw ExitCode(ExitStatus.rejected.rawValue) }
    }

    /// `I/N` as a shard, when 0 <= I < N.
    static func parseShard(_ text: String) -> (index: Int, count: Int)? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, index >= 0, index < count else {
            return nil
        }
        return (index, count)
    }

    /// Prints the service events a person waiting for the run wants to know about.
    @Sendable static func describe(_ event: ServiceEvent) {
        guard case .rateLimited(let service, let manager, let wait?) = event, wait >= 0.5 else { return }
        if Terminal.standardErrorIsTerminal { ProgressLine.clear() }
        Terminal.error(
            "reform: service '\(service)' (manager '\(manager)'): rate limit reached; waiting \(Int(saturating: wait.rounded(.up))) s for it to reset"
        )
    }

    /// Which `--param` value (from 1) on the raw command line is not valid UTF-8: Swift's
    /// arguments replace such bytes with U+FFFD, which would be sent without a word.
    static func paramNotUTF8() -> Int? {
        var count = 0
        var nextIsParam = false
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let raw = String(cString: pointer)  // repaired: only to recognise the flag
            let isParam = nextIsParam || raw.hasPrefix("--param=")
            nextIsParam = raw == "--param"
            guard isParam else { continue }
            count += 1
            if String(validatingCString: pointer) == nil { return count }
        }
        return nil
    }

}

/// `NAME=VALUE` options (`--param`, `--input`, `--partitions`): split at the first `=`, and checked
/// with one message per flag, so every command reads and refuses them alike.
enum CommandLinePair {
    /// The name before the first `=` and the value after it (empty when there is no `=`).
    static func split(_ pair: String) -> (name: String, value: String) {
        guard let eq = pair.firstIndex(of: "=") else { return (pair, "") }
        return (String(pair[..<eq]), String(pair[pair.index(after: eq)...]))
    }

    /// The value after the first `=` of each pair.
    static func values(_ pairs: [String]) -> [String] { pairs.map { split($0).value } }

    /// `--param` values as the run sends them.
    static func params(_ pairs: [String]) -> [String: Value] {
        var params: [String: Value] = [:]
        for (key, text) in pairs.map(split) { params[key] = CommandLineValue.parse(text) }
        return params
    }

    /// `--input`s (or `--partitions`) as manager and path.
    static func files(_ pairs: [String]) -> [(manager: String, path: String)] {
        pairs.map(split).map { (manager: $0.name, path: $0.value) }
    }

    /// Refuses a `--param` or `--input` without its `=`.
    static func check(params: [String], inputs: [String]) throws {
        for param in params where !param.contains("=") {
            throw ValidationError("--param '\(param)' must be K=V, as in --param city=shanghai")
        }
        for input in inputs where !input.contains("=") {
            throw ValidationError("--input '\(input)' must be MANAGER=PATH, as in --input zufang=zufang.ndjson")
        }
    }
}

extension LiveTransport.Client: ExpressibleByArgument {}
