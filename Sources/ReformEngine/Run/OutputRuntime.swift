import ReformSDK

#if canImport(Glibc)
import Glibc
#endif

/// One output of a run while it runs: its chain, its writer and its file.
///
/// Plain outputs stream each record to the writer as it leaves the chain. Outputs with a row shape
/// collect rows, sort them (stable) by the shape's key, and render them at the end, each in the
/// style of the manager it came from.
struct OutputRuntime {
    let plan: OutputPlan
    let file: OutputFile
    private var chain: ChainRunner
    private var writer: any RecordWriter
    private var produced: [Record] = []
    private var rejected: [ChainRunner.Rejection] = []
    private var rows: [Record] = []
    private(set) var written = 0
    /// The format records are written in.
    let format: OutputFormat

    init(_ plan: OutputPlan, index: Int, options: RunOptions, managers: [ManagerRef]) throws(RunError) {
        self.plan = plan
        let toStdout = plan.path == nil
        let path = toStdout ? options.outputPath : plan.path
        let format = (toStdout ? options.format : nil) ?? plan.format ?? (plan.rows != nil ? .table : .ndjson)
        do {
            file = try path.map { p throws(OutputError) in try OutputFile.atomic(path: p) } ?? OutputFile.standardOutput()
        } catch {
            throw RunError(error.description)
        }
        let columns: [OutputColumn]?
        if let rows = plan.rows {
            columns = rows.columns.map { OutputColumn(header: $0.header, key: $0.header) }
        } else if format == .ndjson || format == .json {
            // A keyed chain already emits exactly its keys in order: write records whole.
            columns = nil
        } else {
            columns = plan.keys.map { $0.map { OutputColumn(header: $0, key: $0) } }
        }
        let isTerminal = path == nil && isatty(1) == 1
        let colour = ColourMode.auto.isEnabled(isTerminal: isTerminal, noColour: getenv("NO_COLOR").map { String(cString: $0) })
        writer = format.makeWriter(
            columns: columns, output: file, colour: options.colour ?? colour,
            maxWidth: isTerminal ? options.maxWidth : nil)
        chain = ChainRunner(plans: plan.chain, origin: Origin(manager: managers.first ?? ManagerRef(index: 0, name: ""), sequence: 0))
        self.format = format
    }

    /// Feeds one landed record; `original` gives the whole record when the landed one was built
    /// only in part, so that a rejection at the first step still dead-letters everything.
    mutating func process(
        _ record: Record, inputName: String, deadLetter: DeadLetter, original: () -> Value?
    ) throws(OutputError) {
        chain.process(record, into: &produced, rejected: &rejected)
        if !rejected.isEmpty {
            for i in rejected.indices where rejected[i].stageIndex == 0 {
                if let whole = original() { rejected[i].record.value = whole }
            }
        }
        try drain(deadLetter: deadLetter, inputName: inputName)
    }

    /// Counts records a fast path wrote straight to this output's file.
    mutating func countDirect(_ count: Int) {
        written += count
    }

    mutating func finish(deadLetter: DeadLetter) throws(OutputError) {
        chain.finish(into: &produced, rejected: &rejected)
        try drain(deadLetter: deadLetter, inputName: nil)
        if let shape = plan.rows {
            var sorted = rows
            if let key = shape.sortKey {
                sorted = StepState.stableSorted(rows, by: ValuePath([.key(key)]), descending: shape.descending)
            }
            for record in sorted {
                try writer.write(OutputRuntime.row(record.value, shape), style: shape.styles[record.origin.manager.index] ?? .plain)
                written += 1
            }
        }
        try writer.finish()
    }

    private mutating func drain(deadLetter: DeadLetter, inputName: String?) throws(OutputError) {
        for rejection in rejected {
            let origin = rejection.record.origin
            let input = inputName.map { origin.line > 0 ? "\($0):\(origin.line)" : (origin.page > 0 ? "\($0) page \(origin.page)" : $0) }
            try deadLetter.add(
                manager: origin.manager.name, sequence: origin.sequence, input: input,
                stage: "reformer '\(rejection.stage)'" + (plan.path.map { " (output \($0))" } ?? ""),
                error: rejection.error, record: rejection.record.value)
        }
        rejected.removeAll(keepingCapacity: true)
        if plan.rows != nil {
            rows.append(contentsOf: produced)
        } else {
            for record in produced {
                try writer.write(record.value, style: .plain)
                written += 1
            }
        }
        produced.removeAll(keepingCapacity: true)
    }

    /// A record rendered into the row shape: one member per column, named by its header.
    private static func row(_ value: Value, _ shape: RowsPlan) -> Value {
        var row = Object(minimumCapacity: shape.columns.count)
        for column in shape.columns {
            row[column.header] = value[path: ValuePath([.key(column.key)])] ?? .null
        }
        return .object(row)
    }
}
