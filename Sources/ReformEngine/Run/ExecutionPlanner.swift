@_spi(Engine) import ReformSDK

/// One output as the run's plan decided it: the format it is written in, and the reformer its
/// chain ends with when that runs on the written lines (``HeldLines``).
struct OutputExecution {
    /// The output as declared.
    let declared: OutputPlan
    /// The output whose chain the records go through: the declared one, less a last reformer
    /// that runs on the written lines.
    let plan: OutputPlan
    /// The format written; `nil` for a table.
    let format: OutputFormat?
    /// The chain's last reformer, run on the written lines; `nil` when the chain runs whole on records.
    let heldLines: HeldLines?
}

/// What the run does with one manager's records, decided once before anything lands.
struct ManagerExecution {
    /// Its `--input` files, expanded.
    let files: [String]
    /// Whether its NDJSON inputs land on `--jobs` workers (``ParallelLanding``).
    let parallel: Bool
    /// What takes each NDJSON input line first.
    let lines: LinePath
    /// The top-level fields the JSON reader builds (the others are skipped); `nil`: every field.
    let projection: JSONProjection?
    /// Why the lines take no faster tier than they do, in words for `reform run --explain`.
    let why: String?
    /// Why the input lands on one thread (`nil` when it lands on workers, or reads no files).
    let whyOneThread: String?
}

/// What a manager's landing depends on besides the pipeline: its inputs and where its records go.
struct ManagerFacts {
    /// Its `--input` files, expanded.
    var files: [String]
    /// Whether it reads `--tagged-input`s.
    var tagged: Bool
    /// Whether its records make other managers' partitions (they are then read whole).
    var isParent: Bool
    /// Whether its records go to the outputs and nowhere else: no partitions of children, no
    /// incremental bookmark, not a parent landed only for its children.
    var toOutputsOnly: Bool
}

/// The one place a run decides which tier runs what: for each output, whether its last reformer
/// runs on the written lines; for each manager, whether workers share its input and what reads
/// each input line before the general tier's values. The run builds what these decisions name
/// (``Runner``, ``ParallelLanding``, ``OutputRuntime``), and `reform run --explain` prints them
/// (``ExecutionPlan``).
///
/// Each tier still says what it can take (a compiler gives `nil` for a step it has no compiled
/// form of); the planner asks each once and chooses.
enum ExecutionPlanner {
    /// The plan of output `plan`; `resumable`: an incremental run's output, written as records come.
    static func output(_ plan: OutputPlan, options: RunOptions, resumable: Bool) -> OutputExecution {
        let format = plan.table == nil ? OutputRuntime.format(of: plan, options: options) : nil
        // An incremental run's output is resumed from its checkpoints: its records go out as they come.
        let split =
            options.fastPaths && !resumable ? format.flatMap { HeldLines.split(plan, format: $0, sortMemory: options.sortBudget) } : nil
        return OutputExecution(declared: plan, plan: split?.plan ?? plan, format: format, heldLines: split?.tail)
    }

    /// The plan of `manager`'s landing in a run with these outputs.
    static func manager(_ manager: ManagerRef, facts: ManagerFacts, outputs: [OutputExecution], options: RunOptions) -> ManagerExecution {
        let plans = outputs.map(\.plan)
        guard !facts.files.isEmpty || facts.tagged else {
            return ManagerExecution(files: facts.files, parallel: false, lines: .values, projection: nil, why: nil, whyOneThread: nil)
        }
        let oneThread =
            if facts.isParent {
                "its records make other managers' partitions, in input order"
            } else if facts.tagged {
                "tagged inputs are read in turn"
            } else {
                whyNotParallel(facts.files, outputs: plans, options: options)
            }
        guard let oneThread else {
            let (lines, why) = parallelLines(for: manager, outputs: outputs, options: options)
            return ManagerExecution(
                files: facts.files, parallel: true, lines: lines, projection: InputProjection.make(for: manager, outputs: plans), why: why,
                whyOneThread: nil)
        }
        let whole = facts.isParent
        // A watched run shows each record as it landed, whole.
        let projection =
            options.sample == nil && options.watch == nil && !whole ? InputProjection.make(for: manager, outputs: plans) : nil
        let (lines, why) = sequentialLines(for: manager, facts: facts, outputs: outputs, options: options)
        return ManagerExecution(
            files: facts.files, parallel: false, lines: lines, projection: projection, why: why, whyOneThread: oneThread)
    }

    /// Why `files` of a run with `outputs` land on one thread; `nil` when they land on workers:
    /// more than one job, no `--limit`/`--sample`, NDJSON inputs only, and chains whose first
    /// reformer holds nothing between records (the workers run at least that one: a record it
    /// rejects is dead-lettered whole, from the line).
    static func whyNotParallel(_ files: [String], outputs: [OutputPlan], options: RunOptions) -> String? {
        if options.jobs <= 1 { return "--jobs 1" }
        if options.watch != nil { return "the run is watched (every record passes each step on one thread)" }
        if options.limit != nil { return "--limit reads the input's start in turn" }
        if options.sample != nil { return "--sample reads the whole input in turn" }
        if let other = files.first(where: { !InputFiles.isNDJSON($0) }) { return "input '\(other)' is not NDJSON" }
        if let held = outputs.first(where: { !$0.chain.isEmpty && ChainRunner.perRecordStages($0.chain) == 0 }),
            let first = held.chain.first
        {
            return "reformer '\(first.name)' starts a chain and holds records (a sort, dedupe, limit or plugin)"
        }
        // A byte range is a task's share of a file: one worker reads it (an engine runs tasks side by side).
        if files.contains(where: { !FilePaths.isFile($0) && InputRange.parse($0) != nil }) {
            return "a byte range of a file is one task's share"
        }
        return nil
    }

    /// What takes each line on the workers: the only output written from the line, several
    /// outputs' fan-out, or the compiled start of the first output's chain within the part the
    /// workers run.
    private static func parallelLines(for manager: ManagerRef, outputs: [OutputExecution], options: RunOptions) -> (LinePath, String?) {
        let plans = outputs.map(\.plan)
        guard options.fastPaths else { return (.values, options.watch == nil ? "the fast paths are turned off" : "the run is watched") }
        // A table output (no format) takes records, never bytes.
        if let format = outputs.first?.format,
            let encoder = LineEncoder.make(for: manager, outputs: plans, format: format, limits: options.recordLimits)
        {
            return (.direct(.encoder(encoder.kind)), nil)
        }
        if let fanOut = FanOut.make(for: manager, outputs: plans, formats: outputs.map(\.format), limits: options.recordLimits) {
            // The workers run the compiled start of the output left only within their part of its chain.
            let rest = fanOut.rest.flatMap {
                $0.prefix.stages <= ChainRunner.perRecordStages(plans[$0.output].chain) ? $0.prefix.stages : nil
            }
            return (.fanOut(LinePath.FanOutShape(encoders: fanOut.kinds, restStages: rest, boundTable: false)), nil)
        }
        let workersRun = plans.first.map { ChainRunner.perRecordStages($0.chain) } ?? 0
        if let prefix = ChainPrefix(for: manager, outputs: plans, limits: options.recordLimits), prefix.stages <= workersRun {
            return (.prefix(stages: prefix.stages), why(compiledStopsIn: plans, manager: manager))
        }
        return (.values, why(compiledStopsIn: plans, manager: manager))
    }

    /// What takes each line on this thread: the only output (or the outputs) written from the
    /// line, or the compiled start of the only output's chain.
    private static func sequentialLines(for manager: ManagerRef, facts: ManagerFacts, outputs: [OutputExecution], options: RunOptions)
        -> (LinePath, String?)
    {
        let plans = outputs.map(\.plan)
        guard options.fastPaths else { return (.values, options.watch == nil ? "the fast paths are turned off" : "the run is watched") }
        if options.limit != nil { return (.values, "--limit lands records one by one") }
        if options.sample != nil { return (.values, "--sample lands records one by one") }
        if facts.isParent { return (.values, "its records make other managers' partitions, which read them whole") }
        // The compiled start of the chain lands records for the rest of it, and several outputs'
        // fast path (a fan-out) lands them for the outputs it leaves: only where a landed record
        // goes to the outputs alone.
        if outputs.count == 1 || facts.toOutputsOnly, let direct = direct(for: manager, outputs: outputs, options: options) {
            return (direct, nil)
        }
        if facts.toOutputsOnly, let prefix = ChainPrefix(for: manager, outputs: plans, limits: options.recordLimits) {
            return (.prefix(stages: prefix.stages), why(compiledStopsIn: plans, manager: manager))
        }
        if !facts.toOutputsOnly { return (.values, "its records go somewhere besides the outputs (an incremental bookmark)") }
        return (.values, why(compiledStopsIn: plans, manager: manager))
    }

    /// The fast path that writes the outputs from the line, when one applies.
    private static func direct(for manager: ManagerRef, outputs: [OutputExecution], options: RunOptions) -> LinePath? {
        let plans = outputs.map(\.plan)
        let limits = options.recordLimits
        if outputs.count > 1 {
            guard let fanOut = FanOut.make(for: manager, outputs: plans, formats: outputs.map(\.format), limits: limits) else { return nil }
            // Two outputs to standard output are one file: the fan-out writes each of its own.
            let toStandardOutput = fanOut.covers.indices.filter {
                fanOut.covers[$0] && OutputRuntime.path(of: plans[$0], options: options) == nil
            }
            guard toStandardOutput.count <= 1 else { return nil }
            let left = fanOut.covers.indices.filter { !fanOut.covers[$0] }
            let boundTable = left.count == 1 && TableDirect.applies(for: manager, output: plans[left[0]])
            return .fanOut(
                LinePath.FanOutShape(
                    encoders: fanOut.kinds, restStages: boundTable ? nil : fanOut.rest?.prefix.stages, boundTable: boundTable))
        }
        guard let output = outputs.first else { return nil }
        if output.plan.table != nil { return TableDirect.applies(for: manager, output: output.plan) ? .direct(.table) : nil }
        guard let format = output.format else { return nil }
        if let encoder = LineEncoder.make(for: manager, outputs: plans, format: format, limits: limits) {
            return .direct(.encoder(encoder.kind))
        }
        if FieldReformerEncoder.make(for: manager, outputs: plans, format: format, limits: limits) != nil {
            return .direct(.fieldReformer)
        }
        return nil
    }

    /// Where the compiled path stops in the only output's chain, in words.
    private static func why(compiledStopsIn outputs: [OutputPlan], manager: ManagerRef) -> String? {
        guard outputs.count == 1, let output = outputs.first, !output.chain.isEmpty else { return nil }
        return CompiledChain.uncovered(output.chain[...], manager: manager, exploding: false)
    }
}
