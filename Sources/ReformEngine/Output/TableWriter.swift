public import ReformSDK

/// Writes records as a table aligned for a terminal: a header row, a dashed separator, one row per
/// record.
///
/// Column widths and alignment come from the first ``defaultLayoutRows`` rows (or the given
/// `layoutRows`), which are kept until then; the table is then written and later rows stream out in
/// constant memory, their cells cut with `…` to those widths. A table no longer than that is laid
/// out over all its rows. Without explicit columns, keys first seen after the layout cannot get a
/// column; a note under the table names them (`--format ndjson` or `csv` show every key).
///
/// Columns are separated by two spaces and sized by terminal display width (``DisplayWidth``), so
/// CJK and emoji line up. Columns whose values are all numbers are right-aligned. Cells read as
/// strings raw, `null` empty, numbers and booleans as JSON, arrays and objects as compact JSON;
/// control characters (newlines, tabs, escape, C1 controls) are shown escaped (`\n`, `\t`,
/// `\u001b`) so a cell cannot break the grid. Lines carry no trailing spaces.
///
/// Without explicit columns the columns are every key seen, in first-seen order. With a maximum
/// width the widest columns are narrowed (cells cut with `…`) until the table fits, none below three
/// terminal columns (or its natural width, if less); a table that still does not fit is written wider
/// than asked.
///
/// With colour on, the header is bold and rows are styled by their ``RowStyle``: ``RowStyle/highlight``
/// bold yellow, ``RowStyle/dim`` faint, ``RowStyle/bold`` bold, a colour in that colour. No records and no explicit columns
/// write nothing; explicit columns and no records write the header and separator.
public struct TableWriter: RecordWriter {
    private let output: OutputFile
    private let colour: Bool
    private let maxWidth: Int?
    private let derivesColumns: Bool
    private var columns: [OutputColumn]
    private var knownKeys: Set<String> = []
    private var rows: [(record: Object, style: RowStyle)] = []
    private let layoutRows: Int
    /// Set once the header is written: every later row streams with it.
    private var layout: Layout?
    private var scratch: [UInt8] = []
    /// Rows written so far (for the note on late keys).
    private var written = 0
    /// Keys first seen after the layout, which have no column, in first-seen order.
    private var lateKeys: [String] = []

    /// The rows a table is laid out over before it starts streaming.
    public static let defaultLayoutRows = 1000

    /// Narrowest a column is cut to when fitting a maximum width.
    private static let minimumColumnWidth = 3
    private static let separator = "  "

    /// A writer into `output`; `columns` empty (or `nil`) takes every key the records have.
    ///
    /// - Parameters:
    ///   - columns: The columns to write, in order; empty or `nil` for every key the records have.
    ///   - output: Where the rendered table goes.
    ///   - colour: Whether to write ANSI escape codes; decide it with ``ColourMode``.
    ///   - maxWidth: The terminal's width in columns, to cut cells so rows fit; `nil` for no limit.
    ///   - layoutRows: How many rows set the column widths before the rest stream.
    public init(
        output: OutputFile, columns: [OutputColumn]? = nil, colour: Bool = false, maxWidth: Int? = nil,
        layoutRows: Int = TableWriter.defaultLayoutRows
    ) {
        self.output = output
        self.layoutRows = max(1, layoutRows)
        self.colour = colour
        self.maxWidth = maxWidth
        self.columns = columns ?? []
        derivesColumns = self.columns.isEmpty
    }

    /// Keeps the record until the layout is known (adding columns for keys not seen before), or
    /// writes it in the layout once known.
    public mutating func write(_ record: Value, style: RowStyle) throws(OutputError) {
        let object = try CellText.object(record, number: written + rows.count + 1, format: .table, output: output)
        if derivesColumns {
            for member in object.members where knownKeys.insert(member.key).inserted {
                if layout == nil { columns.append(OutputColumn(key: member.key)) } else { lateKeys.append(member.key) }
            }
        }
        guard let layout else {
            rows.append((object, style))
            if rows.count >= layoutRows { try layOut() }
            return
        }
        let cells = columns.map { column in Cell(value: object[column.key] ?? .null, scratch: &scratch) }
        writeLine(layout.line(cells), style: colour ? style.ansiParameters.map { "\u{1B}[\($0)m" } : nil)
        written += 1
        try output.flushIfFull()
    }

    /// Writes the table, if its layout was not known yet, and the note on late keys.
    public mutating func finish() throws(OutputError) {
        if layout == nil { try layOut() }
        guard !lateKeys.isEmpty else { return }
        let shown = lateKeys.prefix(10).joined(separator: ", ") + (lateKeys.count > 10 ? ", …" : "")
        writeLine(
            "(not shown: \(lateKeys.count == 1 ? "key" : "keys") \(shown), first seen after the \(layoutRows) rows "
                + "the columns were laid out over; --format ndjson or csv shows every key)", style: nil)
        try output.flushIfFull()
    }

    /// Sizes the columns over the rows kept so far, writes the header and those rows, and keeps
    /// the layout for the rows to come.
    private mutating func layOut() throws(OutputError) {
        guard !columns.isEmpty else { return }
        let header = columns.map { Cell(text: $0.header, scratch: &scratch) }
        let body = rows.map { row in
            columns.map { column in Cell(value: row.record[column.key] ?? .null, scratch: &scratch) }
        }
        let rightAligned = columns.map { column in
            var sawNumber = false
            for row in rows {
                switch row.record[column.key] ?? .null {
                case .int, .double: sawNumber = true
                case .null: continue
                default: return false
                }
            }
            return sawNumber
        }
        var widths = header.map(\.width)
        for cells in body {
            for (i, cell) in cells.enumerated() { widths[i] = max(widths[i], cell.width) }
        }
        if let maxWidth { widths = TableWriter.fit(widths, into: maxWidth) }

        let layout = Layout(widths: widths, rightAligned: rightAligned)
        self.layout = layout
        writeLine(layout.line(header), style: colour ? "\u{1B}[1m" : nil)
        writeLine(widths.map { String(repeating: "-", count: $0) }.joined(separator: TableWriter.separator), style: nil)
        try output.flushIfFull()
        for (cells, row) in zip(body, rows) {
            writeLine(layout.line(cells), style: colour ? row.style.ansiParameters.map { "\u{1B}[\($0)m" } : nil)
            try output.flushIfFull()
        }
        written += rows.count
        rows = []
    }

    private func writeLine(_ line: String, style: String?) {
        if let style { CellText.appendUTF8(style, into: &output.buffer) }
        CellText.appendUTF8(line, into: &output.buffer)
        if style != nil { output.buffer.append(contentsOf: "\u{1B}[0m".utf8) }
        output.buffer.append(UInt8(ascii: "\n"))
    }

    /// Column widths narrowed so that they and the separators fit in `maxWidth`: the widest columns
    /// give way first, none below ``minimumColumnWidth`` (or its natural width, if smaller).
    static func fit(_ widths: [Int], into maxWidth: Int) -> [Int] {
        let available = maxWidth - TableWriter.separator.count * (widths.count - 1)
        guard widths.reduce(0, +) > available else { return widths }
        func total(cappedAt cap: Int) -> Int { widths.reduce(0) { $0 + min($1, cap) } }
        // The largest cap whose capped total fits, found by bisection.
        var low = minimumColumnWidth
        var high = widths.max() ?? low
        while low < high {
            let middle = (low + high + 1) / 2
            if total(cappedAt: middle) <= available { low = middle } else { high = middle - 1 }
        }
        var fitted = widths.map { min($0, low) }
        var slack = available - fitted.reduce(0, +)
        for i in fitted.indices where slack > 0 && widths[i] > fitted[i] {
            fitted[i] += 1
            slack -= 1
        }
        return fitted
    }
}

extension TableWriter {
    /// One cell's text, made safe for a terminal, and its display width.
    struct Cell {
        var text: String
        var width: Int

        init(value: Value, scratch: inout [UInt8]) {
            scratch.removeAll(keepingCapacity: true)
            CellText.append(value, into: &scratch)
            self.init(bytes: scratch)
        }

        init(text: String, scratch: inout [UInt8]) {
            scratch.removeAll(keepingCapacity: true)
            CellText.appendUTF8(text, into: &scratch)
            self.init(bytes: scratch)
        }

        private init(bytes: [UInt8]) {
            text = ControlEscapes.escaping(bytes)
            width = DisplayWidth.of(text)
        }

        /// The cell cut to `limit` columns, ending in `…` when anything was cut.
        func truncated(to limit: Int) -> Cell {
            guard width > limit else { return self }
            var kept = ""
            var keptWidth = 0
            for character in text {
                let w = DisplayWidth.of(character)
                if keptWidth + w > limit - 1 { break }
                kept.append(character)
                keptWidth += w
            }
            var cut = self
            cut.text = kept + "…"
            cut.width = keptWidth + 1
            return cut
        }
    }

    /// Column widths and alignment, turning cells into padded lines.
    struct Layout {
        let widths: [Int]
        let rightAligned: [Bool]

        func line(_ cells: [Cell]) -> String {
            var line = ""
            for (i, original) in cells.enumerated() {
                let cell = original.truncated(to: widths[i])
                let padding = String(repeating: " ", count: max(0, widths[i] - cell.width))
                if i > 0 { line += TableWriter.separator }
                line += rightAligned[i] ? padding + cell.text : cell.text + padding
            }
            while line.utf8.last == UInt8(ascii: " ") { line.removeLast() }
            return line
        }
    }
}
