public import ReformSDK
public import ReformYAML

/// A named run: which managers land data, with which parameters, and the outputs it feeds.
public struct RunPlan: Sendable {
    /// The run's name.
    public let name: String
    /// The managers whose records the run lands, in order.
    public let managers: [ManagerRef]
    /// Parameters given to every manager of the run.
    public let params: [String: Value]
    /// The outputs; each reads the same landed records through its own chain (one fetch, many outputs).
    public let outputs: [OutputPlan]
    /// Where the run is declared.
    public let location: SourceLocation
}

/// One output of a run: a reformer chain, an optional row shape, a format and a destination (a
/// file, standard output, or an SQL table).
public struct OutputPlan: Sendable {
    /// The reformers of the chain in order, with key references resolved for this chain; empty
    /// means the raw records.
    public let chain: [ReformerPlan]
    /// The row shape the records render into, with its columns resolved to this chain's keys.
    public let rows: RowsPlan?
    /// The format; `nil` lets the command line or the default (`table` with rows, else `ndjson`) decide.
    public let format: OutputFormat?
    /// The output file, relative to the working folder; `nil` is standard output (or a table).
    public let path: String?
    /// The constant keys the chain ends with, when known (checked at load time).
    public let keys: [String]?
    /// Whether a CSV output starts with the UTF-8 byte-order mark (`bom: true`), which spreadsheet
    /// programs need to read CJK text as UTF-8.
    public let byteOrderMark: Bool
    /// The SQL table the records are loaded into instead of a file (`sqlite:`), if any.
    public let table: TablePlan?
    /// Where the output is declared.
    public let location: SourceLocation
    /// Whether CSV cells a spreadsheet would run as a formula (text starting with `=`, `+`, `-`,
    /// `@`, a tab or a carriage return) are written with a `'` before them, quoted (OWASP's
    /// advice): `escape_formulas:` as declared, where `nil` leaves it to where the output goes
    /// (on for a file, off for standard output). Decided for good when a run starts
    /// (``RunOptions/csvRaw`` turns it off for every output). Numbers are never touched.
    public internal(set) var escapeFormulas: Bool? = nil
    /// Whether CSV and Markdown cells have their control characters escaped (`\u001b`), set when
    /// the run writes the output to a terminal, as the table format always does.
    var escapesControls = false
}

extension OutputPlan {
    /// Whether the output goes to standard output (or `--output`): no `path`, no table.
    public var writesToStandardOutput: Bool { path == nil && table == nil }

    /// Where the output goes as declared, for dead-letter entries: its `path`, or `DATABASE#TABLE`;
    /// `nil` for standard output.
    var destination: String? {
        path ?? table.map { $0.address(of: $0.name) }
    }
}

extension TablePlan {
    /// `DATABASE#NAME` as declared (a PostgreSQL URL with its secrets hidden): the table `name`
    /// of this table's database, for dead-letter entries.
    func address(of name: String) -> String {
        (engine == .postgres ? PostgresURL(database).displayName : database) + "#" + name
    }
}
