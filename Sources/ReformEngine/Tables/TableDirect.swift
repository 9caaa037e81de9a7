@_spi(Engine) import ReformSDK

/// The batch fast path into a table: a plain field mapping's values bound straight from NDJSON
/// input bytes, building no values.
///
/// It applies when a run's only output is a table whose chain is a single mapping copying
/// top-level fields for this manager (required, without defaults or array operations; a
/// conversion only when it is the column's own type). Each line is still checked completely
/// (``JSONParser/locate(_:keeping:into:canonical:)``); anything the general path would reject or
/// convert differently takes the general path, so the table is the same either way.
final class TableDirect {
    private let loader: TableLoader
    private let projection: JSONProjection
    /// For each column, the position of its source field in ``projection``.
    private let sourceIndex: [Int]
    private var ranges: [Range<Int>?] = []
    private var canonical: [Bool] = []
    private var parser: JSONParser
    /// The manager whose lines these are.
    private let manager: ManagerRef

    private init(loader: TableLoader, manager: ManagerRef, sources: [String], limits: JSONLimits) {
        self.loader = loader
        self.manager = manager
        let projection = JSONProjection(keys: sources)
        self.projection = projection
        sourceIndex = sources.map { source in projection.keys.firstIndex(of: source) ?? 0 }
        parser = JSONParser(limits: limits)
    }

    /// The fast path for `manager` into `output`'s table, when it applies (``applies(for:output:)``).
    static func make(for manager: ManagerRef, output: OutputPlan, loader: TableLoader, limits: JSONLimits) -> TableDirect? {
        guard loader.loadsDeclaredColumns else { return nil }
        return sources(for: manager, output: output).map { TableDirect(loader: loader, manager: manager, sources: $0, limits: limits) }
    }

    /// Whether `manager`'s records can be bound into `output`'s table straight from the line.
    static func applies(for manager: ManagerRef, output: OutputPlan) -> Bool {
        sources(for: manager, output: output) != nil
    }

    /// The top-level field each column is bound from, when the fast path applies.
    private static func sources(for manager: ManagerRef, output: OutputPlan) -> [String]? {
        guard let table = output.table, output.chain.count == 1, case .mapping(let mapping) = output.chain[0].kind,
            let rules = mapping.perManager[manager.index] ?? mapping.shared, rules.count == table.columns.count
        else { return nil }
        var sources: [String] = []
        for (rule, column) in zip(rules, table.columns) {
            guard rule.constant == column.name, case .path(let path) = rule.source, path.components.count == 1,
                let key = path.firstKey, !rule.optional, rule.defaultValue == nil, rule.array == nil
            else { return nil }
            if let conversion = rule.conversion, !(column.isKnown && ColumnType(conversion) == column.type) { return nil }
            sources.append(key)
        }
        return sources
    }

    /// Loads the record in `line` (at `place`) when it qualifies; `false` sends it down the
    /// general path.
    func write(_ line: UnsafeRawBufferPointer, at place: LinePlace) throws(OutputError) -> Bool {
        guard parser.locate(line, keeping: projection, into: &ranges, canonical: &canonical) else { return false }
        return try loader.writeDirect(
            line, ranges: ranges, canonical: canonical, sourceIndex: sourceIndex, parser: &parser,
            origin: Origin(manager: manager, sequence: place.index + 1, line: place.line), input: place.input)
    }
}

/// Where a line a fast path takes stands in its input: for the dead-letter entry of a row a
/// database refuses after the line was handled.
struct LinePlace {
    /// The input's name (its path, `<stdin>`).
    let input: String
    /// The 1-based line.
    let line: Int
    /// The 0-based position among the input's records.
    let index: Int
}
