import ReformSDK

/// The batch fast path for rows rendered as CSV: each column's value is located in the NDJSON
/// line (``FieldLocator``) and written as its CSV field straight from the line's bytes, building
/// no record and no row.
///
/// It covers a row shape with no reformers before it, no sort and no value formats (a row is then
/// its columns' values as they are, each read by its manager's path). A cell reads as
/// ``CellText`` reads a value: a string's text (its bytes between the quotes when it has no
/// escapes), nothing for `null` or a missing path, other values as the JSON the writer prints
/// (their bytes when they are already that). Anything unusual — an invalid line, a value that
/// needs re-encoding is parsed and written through ``CellText`` — keeps the general path's answer;
/// a line the locator cannot read goes down the general path, which rejects it. Held to the
/// general path by `CompiledRowsTests`. Text cells a spreadsheet would run as formulas get their
/// `'` as the general path gives it (``CellSafety``); an output to a terminal, whose control
/// characters are escaped, takes the general path.
struct CompiledRows {
    private var locator: FieldLocator
    private var parser: JSONParser
    /// For each column, the located path that fills it.
    private let columns: [Int]
    /// Whether text cells starting like a formula get a `'` (``CellSafety/escapeFormulas``).
    private let escapeFormulas: Bool

    /// The encoder for `manager`'s records when a run has exactly these outputs and the only one
    /// renders rows as CSV in a way the compiled path covers.
    static func make(for manager: ManagerRef, outputs: [OutputPlan], format: OutputFormat, limits: JSONLimits) -> CompiledRows? {
        guard format == .csv, outputs.count == 1, let output = outputs.first, let rows = output.rows, output.chain.isEmpty,
            !output.escapesControls
        else { return nil }
        return make(rows: rows, manager: manager, limits: limits, escapeFormulas: output.escapeFormulas == true)
    }

    /// The encoder of `rows` for records of `manager` (as they come out of any chain before the
    /// rows), when the compiled path covers the shape; `escapeFormulas` as ``CellSafety`` says.
    static func make(rows: RowsPlan, manager: ManagerRef, limits: JSONLimits, escapeFormulas: Bool) -> CompiledRows? {
        guard rows.sortColumn == nil, rows.columns.allSatisfy({ $0.format == nil }) else { return nil }
        let rules = PipelineRecord.Rules.all(for: rows)
        let managerRules = rules.byManager[manager.index] ?? rules.other
        guard managerRules.formats.allSatisfy({ $0 == nil }) else { return nil }
        var paths: [[String]] = []
        var columns: [Int] = []
        for path in managerRules.paths {
            var keys: [String] = []
            for component in path.components {
                guard case .key(let key) = component else { return nil }
                keys.append(key)
            }
            guard !keys.isEmpty else { return nil }
            if let known = paths.firstIndex(of: keys) {
                columns.append(known)
            } else {
                columns.append(paths.count)
                paths.append(keys)
            }
        }
        return CompiledRows(
            locator: FieldLocator(paths: paths), parser: JSONParser(limits: limits), columns: columns, escapeFormulas: escapeFormulas)
    }

    /// Appends the CSV line of the record in `line`; `false` (and nothing appended) sends it down
    /// the general path.
    mutating func encode(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        guard locator.locate(line, parser: &parser) else { return false }
        let mark = out.count
        for (position, path) in columns.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            // The cell is written where its field goes and quoted there when it must be (seldom):
            // a cell built apart and copied over was a fifth of the line's work.
            let start = out.count
            guard let text = appendCell(path, line, into: &out) else {
                out.removeSubrange(mark...)
                return false
            }
            let formula = text && escapeFormulas && start < out.count && CellSafety.startsFormula(out[start])
            CSVWriter.quoteField(in: &out, from: start, lone: columns.count == 1, formula: formula)
        }
        out.append(UInt8(ascii: "\n"))
        return true
    }

    /// Appends the cell text of the value at located path `path` and says whether it was a
    /// string's; `nil` when the value's bytes do not parse (the general path then says why).
    private mutating func appendCell(_ path: Int, _ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool? {
        guard let range = locator.ranges[path] else { return false }  // missing: an empty cell
        let first = line[range.lowerBound]
        if first == UInt8(ascii: "n") { return false }  // null
        let text = first == UInt8(ascii: "\"")
        if locator.canonical[path], first != UInt8(ascii: "{"), first != UInt8(ascii: "[") {
            let quoted = text ? 1 : 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[(range.lowerBound + quoted)..<(range.upperBound - quoted)]))
            return text
        }
        guard let value = parser.parsedValue(UnsafeRawBufferPointer(rebasing: line[range])) else { return nil }
        CellText.append(value, into: &out)
        return text
    }
}
