public import ReformSDK

/// Writes a GitHub-flavoured Markdown pipe table, streamed.
///
/// A header row, a `| --- |` row, then one row per record: `| a | b |`. In cells `|` is written
/// `\|` and line breaks (LF, CR or CRLF) `<br>`, so a cell never splits its row; other Markdown in
/// cells is left for the renderer. Cells read as in the table format. Rows styled
/// ``RowStyle/Emphasis/highlight`` or ``RowStyle/Emphasis/bold`` have bold cells (`**…**`),
/// ``RowStyle/Emphasis/dim`` italic ones (`_…_`); colours are not shown. Columns are the explicit
/// list, or the keys of the first record; keys first seen later are left out. No records and no
/// explicit columns write nothing.
public struct MarkdownWriter: RecordWriter {
    private let output: OutputFile
    private var columns: [OutputColumn]
    private var count = 0
    private var cell: [UInt8] = []

    /// A writer into `output`; `columns` empty (or `nil`) takes them from the first record.
    public init(output: OutputFile, columns: [OutputColumn]? = nil) {
        self.output = output
        self.columns = columns ?? []
    }

    /// Appends the record's row (after the header, for the first), and flushes when full.
    public mutating func write(_ record: Value, style: RowStyle) throws(OutputError) {
        count += 1
        let object = try CellText.object(record, number: count, format: .markdown, output: output)
        if count == 1 {
            if columns.isEmpty { columns = object.keys.map { OutputColumn(key: $0) } }
            writeHeader()
        }
        output.buffer.append(UInt8(ascii: "|"))
        let mark: String? =
            switch style.emphasis {
            case .highlight, .bold: "**"
            case .dim: "_"
            case nil: nil
            }
        for column in columns {
            cell.removeAll(keepingCapacity: true)
            if let value = object[column.key] { CellText.append(value, into: &cell) }
            if let mark, !cell.isEmpty {
                cell.insert(contentsOf: mark.utf8, at: 0)
                cell.append(contentsOf: mark.utf8)
            }
            appendCell()
        }
        output.buffer.append(UInt8(ascii: "\n"))
        try output.flushIfFull()
    }

    /// Writes the header alone when no record came but the columns were given.
    public mutating func finish() throws(OutputError) {
        if count == 0, !columns.isEmpty { writeHeader() }
    }

    private mutating func writeHeader() {
        output.buffer.append(UInt8(ascii: "|"))
        for column in columns {
            cell.removeAll(keepingCapacity: true)
            CellText.appendUTF8(column.header, into: &cell)
            appendCell()
        }
        output.buffer.append(contentsOf: "\n|".utf8)
        for _ in columns { output.buffer.append(contentsOf: " --- |".utf8) }
        output.buffer.append(UInt8(ascii: "\n"))
    }

    /// Appends ` cell |` with pipes and line breaks escaped.
    private func appendCell() {
        MarkdownWriter.appendEscaped(cell, into: &output.buffer)
    }

    /// The escaping loop, with the output buffer borrowed once rather than once a byte.
    private static func appendEscaped(_ cell: [UInt8], into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: " "))
        var i = 0
        while i < cell.count {
            let byte = cell[i]
            switch byte {
            case UInt8(ascii: "|"):
                buffer.append(contentsOf: "\\|".utf8)
            case 0x0D where i + 1 < cell.count && cell[i + 1] == 0x0A:
                buffer.append(contentsOf: "<br>".utf8)
                i += 1
            case 0x0A, 0x0D:
                buffer.append(contentsOf: "<br>".utf8)
            default:
                buffer.append(byte)
            }
            i += 1
        }
        buffer.append(contentsOf: " |".utf8)
    }
}
