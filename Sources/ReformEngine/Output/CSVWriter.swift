public import ReformSDK

/// Writes RFC 4180 comma-separated values with a header line, streamed.
///
/// Lines end with LF, not the CRLF RFC 4180 names: every CSV reader in use accepts LF, and Unix
/// tools (`wc -l`, `cut`, diffs) read it without stray carriage returns. A field is quoted when it
/// holds `,`, `"`, CR or LF, with quotes doubled inside; a lone empty field is written `""` so its
/// line is not blank. Cells read as in the table format (strings raw, `null` empty, numbers and
/// booleans as JSON, arrays and objects as compact JSON).
///
/// Columns are the explicit list, or the keys of the first record; keys first seen later have no
/// column in a streamed header and are left out. No records and no explicit columns write nothing.
/// With `byteOrderMark`, the header is preceded by the UTF-8 byte-order mark (`EF BB BF`), which
/// spreadsheet programs need to read the file as UTF-8 rather than the system's code page.
/// ``CellSafety`` says whether text cells a spreadsheet would run as formulas get a `'` (the
/// header's names too) and whether control characters are escaped for a terminal.
public struct CSVWriter: RecordWriter {
    private let output: OutputFile
    private var columns: [OutputColumn]
    private var count = 0
    private var headerWritten = false
    private var cell: [UInt8] = []
    private let byteOrderMark: Bool
    private let safety: CellSafety

    /// A writer into `output`; `columns` empty (or `nil`) takes them from the first record;
    /// `byteOrderMark` starts the file with the UTF-8 byte-order mark; `safety` says what is
    /// escaped in cells (nothing by default).
    public init(output: OutputFile, columns: [OutputColumn]? = nil, byteOrderMark: Bool = false, safety: CellSafety = CellSafety()) {
        self.output = output
        self.columns = columns ?? []
        self.byteOrderMark = byteOrderMark
        self.safety = safety
        // Given columns make the header whatever comes (records or none): it goes first, so that
        // a fast path may append rows to the file's buffer (`CompiledRows`).
        if !self.columns.isEmpty, output.resumedAt == 0 { writeHeader() }
    }

    /// Appends the record's line (after the header, for the first), and flushes when full.
    public mutating func write(_ record: Value, style: RowStyle) throws(OutputError) {
        count += 1
        let object = try CellText.object(record, number: count, format: .csv, output: output)
        if columns.isEmpty { columns = object.keys.map { OutputColumn(key: $0) } }
        if !headerWritten, output.resumedAt == 0 { writeHeader() }
        for (i, column) in columns.enumerated() {
            if i > 0 { output.buffer.append(UInt8(ascii: ",")) }
            cell.removeAll(keepingCapacity: true)
            let value = object[column.key]
            if let value { CellText.append(value, into: &cell) }
            appendField(lone: columns.count == 1, text: CSVWriter.isText(value))
        }
        output.buffer.append(UInt8(ascii: "\n"))
        try output.flushIfFull()
    }

    /// Appends the row's line straight from its cells, when they are the writer's columns.
    public mutating func write(cells: [Value], of shape: RowShape, style: RowStyle) throws(OutputError) {
        guard cells.count == columns.count else { return try write(shape.object(cells), style: style) }
        count += 1
        if !headerWritten, output.resumedAt == 0 { writeHeader() }
        for (i, value) in cells.enumerated() {
            if i > 0 { output.buffer.append(UInt8(ascii: ",")) }
            cell.removeAll(keepingCapacity: true)
            CellText.append(value, into: &cell)
            appendField(lone: cells.count == 1, text: CSVWriter.isText(value))
        }
        output.buffer.append(UInt8(ascii: "\n"))
        try output.flushIfFull()
    }

    /// Writes the header alone when no record came but the columns were given.
    public mutating func finish() throws(OutputError) {
        if !headerWritten, !columns.isEmpty, output.resumedAt == 0 { writeHeader() }
    }

    private mutating func writeHeader() {
        headerWritten = true
        if byteOrderMark { output.buffer.append(contentsOf: [0xEF, 0xBB, 0xBF]) }
        for (i, column) in columns.enumerated() {
            if i > 0 { output.buffer.append(UInt8(ascii: ",")) }
            cell.removeAll(keepingCapacity: true)
            CellText.appendUTF8(column.header, into: &cell)
            appendField(lone: columns.count == 1, text: true)
        }
        output.buffer.append(UInt8(ascii: "\n"))
    }

    /// Appends ``cell`` as one field, quoted when it must be; `text`: the cell is a string's (a
    /// formula to a spreadsheet when it starts like one).
    private func appendField(lone: Bool, text: Bool) {
        let start = output.buffer.count
        output.buffer.append(contentsOf: cell)
        // A formula's first byte (a tab, a carriage return) is judged before it is escaped.
        let formula = text && safety.escapeFormulas && cell.first.map(CellSafety.startsFormula) == true
        if safety.escapeControls { ControlEscapes.escape(&output.buffer, from: start) }
        CSVWriter.quoteField(in: &output.buffer, from: start, lone: lone, formula: formula)
    }

    /// Whether `value` is a string, whose cell a spreadsheet may take for a formula.
    private static func isText(_ value: Value?) -> Bool {
        if case .string = value { return true }
        return false
    }

    /// Quotes the field `buffer[start...]` in place when it must be quoted: it holds a comma, a
    /// quote (doubled inside the quotes) or a line break, or it is a `lone` field that is empty.
    /// A `formula` (text a spreadsheet would run, see ``CellSafety``) gets a `'` before it and is
    /// always quoted.
    static func quoteField(in buffer: inout [UInt8], from start: Int, lone: Bool, formula: Bool = false) {
        if formula { buffer.insert(UInt8(ascii: "'"), at: start) }
        let needsQuotes =
            formula
            || buffer.withUnsafeBytes { bytes in
                holdsSpecialByte(UnsafeRawBufferPointer(rebasing: bytes[start...]))
            }
        guard needsQuotes || (lone && buffer.count == start) else { return }
        let field = Array(buffer[start...])
        buffer.removeSubrange(start...)
        buffer.append(UInt8(ascii: "\""))
        for byte in field {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Whether `bytes` hold a comma, a quote, a line feed or a carriage return: eight bytes at a
    /// time (a byte equal to one of them makes its word's `x ^ pattern` hold a zero byte).
    private static func holdsSpecialByte(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        var i = 0
        while i + 8 <= bytes.count {
            let x = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if hasZeroByte(x ^ (ones &* 0x2C)) || hasZeroByte(x ^ (ones &* 0x22)) || hasZeroByte(x ^ (ones &* 0x0A))
                || hasZeroByte(x ^ (ones &* 0x0D))
            {
                return true
            }
            i += 8
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 0x0A || byte == 0x0D { return true }
            i += 1
        }
        return false
    }
}
