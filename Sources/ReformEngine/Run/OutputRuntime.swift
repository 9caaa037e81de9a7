import ReformSDK
import ReformSystem

/// One output of a run while it runs: its chain, its writer and its file.
///
/// Plain outputs stream each record to the writer as it leaves the chain. With a row shape each
/// record renders itself into a row by its manager's rules (``PipelineRecord``); sorted shapes keep
/// the rows (within ``RunOptions/sortMemory``, the rest in a temporary file) and write them
/// (stable) at the end, unsorted ones stream them.
struct OutputRuntime {
    /// The output's plan; its chain ends before a last reformer that runs on the written lines
    /// (``HeldLines``), which every part of the run that takes records hands on as lines.
    let plan: OutputPlan
    /// The file written; `nil` for a table output.
    let file: OutputFile?
    /// The table loaded; `nil` for a file output.
    private(set) var table: TableLoader?
    /// Where the records go, for messages and the summary: the file's path (`-` for standard
    /// output) or `DATABASE#TABLE`.
    let displayName: String
    private var chain: ChainRunner
    private var writer: (any RecordWriter)?
    private var produced: [Record] = []
    private var rejected: [ChainRunner.Rejection] = []
    private var rowList: RowList?
    /// The chain's last reformer when it runs on the written lines (a `sort`, see ``HeldLines``);
    /// ``plan`` and the chain then end before it.
    private let heldLines: HeldLines?
    private var rowRules: (byManager: [Int: PipelineRecord.Rules], other: PipelineRecord.Rules)?
    private(set) var written = 0
    /// The format records are written in; `nil` for a table output.
    let format: OutputFormat?

    /// The runtime of an output of a run, as the run's plan decided it (`execution`); `file`,
    /// when given, is written instead of a new atomic file at the output's path (an incremental
    /// run's resumable output). `title` names an HTML page whose output has no row shape (the
    /// shape's name does otherwise). A table output opens its database in `transactions` (one
    /// transaction per database for the whole run); `pipeline` names the run in a table's schema
    /// log.
    init(
        _ execution: OutputExecution, options: RunOptions, managers: [ManagerRef], file given: OutputFile? = nil,
        title: String? = nil, pipeline: String, transactions: DatabaseTransactions
    ) throws(RunError) {
        let plan = execution.declared
        let format = OutputRuntime.format(of: plan, options: options)
        var resolved = execution.plan
        let path = OutputRuntime.path(of: plan, options: options)
        let isTerminal = path == nil && plan.table == nil && isatty(1) == 1
        resolved.escapeFormulas = !options.csvRaw && (plan.escapeFormulas ?? (path != nil))
        resolved.escapesControls = isTerminal
        self.plan = resolved
        heldLines = execution.heldLines
        heldLines?.timing = options.collectsStats
        heldLines?.writesInParallel = options.jobs > 1
        do {
            chain = try ChainRunner(
                plans: self.plan.chain, origin: Origin(manager: managers.first ?? ManagerRef(index: 0, name: ""), sequence: 0),
                sortMemory: options.sortBudget)
        } catch {
            throw RunError(error)
        }
        chain.timing = options.collectsStats
        if let table = plan.table {
            do {
                let loader = try TableLoader(
                    table, pipeline: pipeline, database: try OutputRuntime.database(of: table, options: options), transactions: transactions
                )
                self.table = loader
                displayName = loader.displayName
            } catch {
                throw RunError(error)
            }
            file = nil
            self.format = nil
            writer = nil
            return
        }
        let file: OutputFile
        do {
            if let given {
                file = given
            } else {
                file = try path.map { p throws(OutputError) in try OutputFile.atomic(path: p) } ?? OutputFile.standardOutput()
            }
        } catch {
            throw RunError(error)
        }
        if path == nil {
            file.willWrite = options.beforeStandardOutput
            file.linePrefix = options.standardOutputTag.map { Array(($0 + "\t").utf8) }
        }
        let columns: [OutputColumn]?
        if let rows = plan.rows {
            columns = rows.shape.outputColumns
            rowList = RowList(shape: rows.shape, memoryBudget: options.sortBudget)
            rowRules = PipelineRecord.Rules.all(for: rows)
        } else if format == .ndjson || format == .json {
            // A keyed chain already emits exactly its keys in order: write records whole.
            columns = nil
        } else {
            columns = plan.keys.map { $0.map { OutputColumn(header: $0, key: $0) } }
        }
        let colour = ColourMode.auto.isEnabled(isTerminal: isTerminal, noColour: getenv("NO_COLOR").map { String(cString: $0) })
        writer = format.makeWriter(
            columns: columns, output: file, colour: options.colour ?? colour,
            maxWidth: isTerminal ? options.maxWidth : nil, title: plan.rows?.name ?? title,
            expectedKeys: plan.rows == nil ? plan.keys : nil, byteOrderMark: plan.byteOrderMark || options.csvByteOrderMark,
            safety: CellSafety(escapeFormulas: resolved.escapeFormulas ?? false, escapeControls: isTerminal))
        file.lineHolder = heldLines
        self.file = file
        self.format = format
        displayName = file.displayPath
    }

    /// The format `plan`'s records are written in: `--format` for the standard-output output,
    /// else the declared one, else a table of rows or NDJSON.
    static func format(of plan: OutputPlan, options: RunOptions) -> OutputFormat {
        (plan.path == nil ? options.format : nil) ?? plan.format ?? (plan.rows != nil ? .table : .ndjson)
    }

    /// Where `plan` writes: its declared path (under ``RunOptions/outputFolder`` when set), or
    /// `--output` for the standard-output output; nil for standard output itself.
    static func path(of plan: OutputPlan, options: RunOptions) -> String? {
        guard plan.table == nil else { return nil }
        guard let declared = plan.path else { return options.outputPath }
        return resolve(declared, options: options)
    }

    /// The database `table` loads: an SQLite file resolved like other output paths, or a
    /// PostgreSQL URL with its `${VAR}` references resolved from the run's environment.
    static func database(of table: TablePlan, options: RunOptions) throws(OutputError) -> String {
        switch table.engine {
        case .sqlite:
            return resolve(table.database, options: options)
        case .postgres:
            do throws(InterpolationError) {
                return try InterpolatedString(parsing: table.database).resolve(in: options.environment, secret: true)
            } catch {
                throw OutputError(path: table.database, message: "cannot connect to table '\(table.name)': \(error.message)")
            }
        }
    }

    /// A declared output path (a file or a database): under ``RunOptions/outputFolder`` when set,
    /// else as declared (relative to the working folder).
    static func resolve(_ declared: String, options: RunOptions) -> String {
        options.outputFolder.map {
            FilePaths.resolve(declared.hasPrefix("/") ? String(declared.dropFirst()) : declared, against: $0)
        }
            ?? declared
    }

    /// Feeds one landed record; `original` gives the whole record when the landed one was built
    /// only in part, so that a rejection at the first step still dead-letters everything.
    /// `position` says where the record starts in its file when a byte range was read.
    mutating func process(
        _ record: Record, fromStage stage: Int = 0, inputName: String, position: RangePosition? = nil, deadLetter: DeadLetter,
        original: () -> Value?
    ) throws(OutputError) {
        chain.process(record, fromStage: stage, into: &produced, rejected: &rejected)
        if !rejected.isEmpty {
            for i in rejected.indices where rejected[i].stageIndex == 0 {
                if let whole = original() { rejected[i].record.value = whole }
            }
        }
        try drain(deadLetter: deadLetter, inputName: inputName, position: position)
    }

    /// Lets `watch` see what each reformer of the chain takes, makes and rejects; the output is
    /// the run's `index`-th.
    mutating func watch(by watch: RunWatch, as index: Int) {
        watch.output(
            index, name: plan.destination ?? displayName, stages: chain.stageOutline,
            rowShape: plan.rows.map { ($0.name, $0.shape.columns.map(\.name)) })
        chain.watch = (watch, index)
        rowList?.rowWritten = { row in watch.wroteRow(row.cells, origin: row.origin, output: index) }
        watchesRows = rowList != nil
    }

    /// Whether each row is given its record's origin (a watched run's rows, ``RunWatch``).
    private var watchesRows = false

    /// The chain's reformers, in order.
    var stageNames: [String] { chain.stageNames + (heldLines.map { [$0.reformer] } ?? []) }
    /// Per reformer of the chain, whether it ran on the written lines (``HeldLines``).
    var stagesOnLines: [Bool] { chain.stageNames.map { _ in false } + (heldLines.map { _ in [true] } ?? []) }
    /// What each of the chain's reformers did (when timing).
    var stageCounts: [ChainRunner.StageCounts] { chain.counts + (heldLines.map { [$0.counts] } ?? []) }

    /// Adds a worker's counts of this output's chain.
    mutating func addStageCounts(_ counts: [ChainRunner.StageCounts]) {
        chain.add(counts)
    }

    /// Takes a record a worker already ran through this output's chain (its rejections are
    /// already in the dead-letter file), as if the chain had just produced it.
    mutating func take(_ record: Record, inputName: String, deadLetter: DeadLetter) throws(OutputError) {
        produced.append(record)
        try drain(deadLetter: deadLetter, inputName: inputName)
    }

    /// Appends `count` records a worker already wrote as NDJSON bytes.
    mutating func appendEncoded(_ bytes: [UInt8], count: Int) throws(OutputError) {
        written += count
        try file?.append(bytes)
    }

    /// A copy of the sort's steps for a `--jobs` worker to read its lines' sort keys with, when
    /// the output's chain ends with a sort that can take lines so (``HeldLines/keyReader``).
    var sortKeyReader: LineSteps? { heldLines?.keyReader }

    /// Hands on lines whose sort keys a worker read with ``sortKeyReader``; they are counted with
    /// the batch's other lines (``appendEncoded(_:count:)``).
    func appendHeld(_ batch: HeldBatch) throws(OutputError) {
        guard let file else { return }
        // After the bytes buffered before the batch.
        try file.flush()
        guard let heldLines, file.lineHolder != nil else {
            throw OutputError(path: file.displayPath, message: "internal error: lines with their sort keys came after the sort's end")
        }
        do { try heldLines.take(batch: batch) } catch { throw OutputError(path: file.displayPath, message: error.message) }
    }

    /// Counts records a fast path wrote straight to this output's file: each went through every
    /// stage of the chain (the fast path applies it as it writes), so `--stats` counts them there.
    ///
    /// `stages` says what each reformer at the chain's start did, when the fast path knows (a
    /// compiled chain's filters drop records, its `explode` makes more); `nil` means one in, one
    /// out through every stage.
    mutating func countDirect(_ count: Int, stages: [ChainRunner.StageCounts]? = nil) {
        written += count
        chain.add(
            stages ?? Array(repeating: ChainRunner.StageCounts(recordsIn: count, recordsOut: count), count: chain.stageNames.count))
    }

    mutating func finish(deadLetter: DeadLetter) throws(OutputError) {
        while chain.release(into: &produced, rejected: &rejected) {
            try drain(deadLetter: deadLetter, inputName: nil)
        }
        try drain(deadLetter: deadLetter, inputName: nil)
        if let heldLines, let file {
            try file.flush()
            file.lineHolder = nil
            try heldLines.release(into: file)
            written -= heldLines.counts.recordsIn - heldLines.counts.recordsOut
        }
        if var list = rowList {
            written += list.count
            try withWriter { writer throws(OutputError) in try list.write(to: &writer) }
            rowList = list
        }
        try writer?.finish()
        if let table {
            try table.finish()
            try deadLetterRefused(by: table, into: deadLetter)
            try table.logLoad(rows: written)
            childLoads = try table.loadChildren { rejection throws(OutputError) in
                try deadLetter.add(
                    manager: rejection.origin.manager.name, sequence: rejection.origin.sequence,
                    input: input(rejection.origin, rejection.input, nil),
                    stage: "table \(table.plan.address(of: rejection.table))",
                    error: rejection.error, record: rejection.row)
            }
        }
    }

    /// What the run loaded into the table's child tables (``TablePlan/children``).
    private(set) var childLoads: [TableLoader.ChildLoad] = []

    /// Sends the rows `table`'s database refused after they were handed on (a batch it loads
    /// while the run goes on) to the dead-letter file; they are no longer counted as written.
    /// Rows the fast path bound into the table straight from their lines that the database
    /// then refused (dead-lettered at the end): the run's count of records written directly
    /// counted them, and takes them back (``Runner``).
    private(set) var refusedDirectly = 0

    private mutating func deadLetterRefused(by table: TableLoader, into deadLetter: DeadLetter) throws(OutputError) {
        for refused in table.takeRefused() {
            try deadLetter.add(
                manager: refused.origin.manager.name, sequence: refused.origin.sequence, input: input(refused.origin, refused.input, nil),
                stage: "table \(plan.destination ?? displayName)", error: refused.error, record: refused.record)
            written -= 1
            if refused.direct { refusedDirectly += 1 }
        }
    }

    private mutating func drain(deadLetter: DeadLetter, inputName: String?, position: RangePosition? = nil) throws(OutputError) {
        if let failure = rejected.first(where: { $0.error.isSpillFailure }) {
            throw OutputError(path: displayName, message: failure.error.message)
        }
        for rejection in rejected {
            let origin = rejection.record.origin
            try deadLetter.add(
                manager: origin.manager.name, sequence: origin.sequence, input: input(origin, inputName, position),
                stage: "reformer '\(rejection.stage)'" + (plan.destination.map { " (output \($0))" } ?? ""),
                error: rejection.error, record: rejection.record.value)
        }
        rejected.removeAll(keepingCapacity: true)
        if var list = rowList, let rowRules {
            rowList = nil
            for record in produced {
                let rules = rowRules.byManager[record.origin.manager.index] ?? rowRules.other
                if watchesRows { list.nextOrigin = record.origin }
                do { try PipelineRecord(value: record.value, rules: rules).giveData(to: &list) } catch {
                    if error.isSpillFailure { throw OutputError(path: displayName, message: error.message) }
                    try deadLetter.add(
                        manager: record.origin.manager.name, sequence: record.origin.sequence,
                        input: input(record.origin, inputName, position),
                        stage: "row shape '\(plan.rows?.name ?? "")'", error: error, record: record.value)
                }
            }
            if list.shape.sortColumn == nil {
                written += list.count
                try withWriter { writer throws(OutputError) in try list.write(to: &writer) }
            }
            rowList = list
        } else if let table {
            for record in produced {
                if let rejection = try table.write(
                    record.value, origin: record.origin, input: inputName)
                {
                    try deadLetter.add(
                        manager: record.origin.manager.name, sequence: record.origin.sequence,
                        input: input(record.origin, inputName, position),
                        stage: "table \(plan.destination ?? displayName)", error: rejection, record: record.value)
                } else {
                    written += 1
                }
            }
            try deadLetterRefused(by: table, into: deadLetter)
        } else {
            for record in produced {
                try writer?.write(record.value, style: .plain)
                written += 1
            }
        }
        produced.removeAll(keepingCapacity: true)
    }

    /// Runs `body` on the writer, taken out of the runtime meanwhile so that it is never copied
    /// (a table writer holds its rows).
    private mutating func withWriter(_ body: (inout any RecordWriter) throws(OutputError) -> Void) throws(OutputError) {
        guard var current = writer else { return }
        writer = nil
        defer { writer = current }
        try body(&current)
    }

    /// Where a record came from, for its dead-letter entry: `file:line`, `fixtures page 2`,
    /// `file@offset` (a byte range).
    private func input(_ origin: Origin, _ inputName: String?, _ position: RangePosition?) -> String? {
        if let position, inputName != nil { return position.describe(origin) }
        return inputName.map { origin.line > 0 ? "\($0):\(origin.line)" : (origin.page > 0 ? "\($0) page \(origin.page)" : $0) }
    }
}
