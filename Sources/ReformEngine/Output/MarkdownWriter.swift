public import ReformSDK

/// Writes a GitHub-flavoured Markdown pipe table, streamed.
///
/// A header row, a `| --- |` row, then one row per record: `| a | b |`. Cells are data, never
/// markup: `|` is written `\|` and line breaks (LF, CR or CRLF) ` <br>`, so a cell never splits its
/// row (the one HTML written: a pipe table has no other line break; the space keeps the words
/// apart where a renderer drops HTML); `<` and `>` become `&lt;` and `&gt;` and an `&` that would start an entity `&amp;`, so no
/// inline HTML (a `<script>` in a field) reaches the renderer; and what CommonMark or GitHub would
/// read as markup gets a backslash: `\`, the backtick, `*`, `_`, `[`, `~`, `$` anywhere, `#` at the
/// start of a cell. Cells read as in the table format. Rows styled
/// ``RowStyle/Emphasis/highlight`` or ``RowStyle/Emphasis/bold`` have bold cells (`**…**`),
/// ``RowStyle/Emphasis/dim`` italic ones (`_…_`); colours are not shown. Columns are the explicit
/// list, or the keys of the first record; keys first seen later are left out. No records and no
/// explicit columns write nothing. Written to a terminal, control characters in cells (an ESC
/// sequence from the data) are escaped as the table format escapes them (`\u001b`).
public struct MarkdownWriter: RecordWriter {
    private let output: OutputFile
    private var columns: [OutputColumn]
    private var count = 0
    private var cell: [UInt8] = []
    private let escapeControls: Bool

    /// A writer into `output`; `columns` empty (or `nil`) takes them from the first record;
    /// `escapeControls` escapes control characters in cells (for a terminal).
    public init(output: OutputFile, columns: [OutputColumn]? = nil, escapeControls: Bool = false) {
        self.output = output
        self.columns = columns ?? []
        self.escapeControls = escapeControls
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
            appendCell(mark: cell.isEmpty ? nil : mark)
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

    /// Appends ` cell |`, escaped, between the row style's `mark`s.
    private func appendCell(mark: String? = nil) {
        let start = output.buffer.count
        MarkdownWriter.appendEscaped(cell, mark: mark, into: &output.buffer)
        // Line breaks are `<br>` by now: what is left are controls a terminal would obey.
        if escapeControls { ControlEscapes.escape(&output.buffer, from: start) }
    }

    /// The escaping loop, with the output buffer borrowed once rather than once a byte.
    private static func appendEscaped(_ cell: [UInt8], mark: String?, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: " "))
        if let mark { buffer.append(contentsOf: mark.utf8) }
        var i = 0
        while i < cell.count {
            let byte = cell[i]
            switch byte {
            case UInt8(ascii: "|"):
                buffer.append(contentsOf: "\\|".utf8)
            case 0x0D where i + 1 < cell.count && cell[i + 1] == 0x0A:
                buffer.append(contentsOf: " <br>".utf8)
                i += 1
            case 0x0A, 0x0D:
                buffer.append(contentsOf: " <br>".utf8)
            case UInt8(ascii: "<"):
                buffer.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"):
                buffer.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "&") where startsEntity(cell, at: i + 1):
                buffer.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "#") where i == 0:
                buffer.append(contentsOf: "\\#".utf8)
            case UInt8(ascii: "\\"), UInt8(ascii: "`"), UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "~"),
                UInt8(ascii: "$"):
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(byte)
            default:
                buffer.append(byte)
            }
            i += 1
        }
        if let mark { buffer.append(contentsOf: mark.utf8) }
        buffer.append(contentsOf: " |".utf8)
    }

    /// Whether the bytes after an `&` make it an entity (`&copy;`, `&#169;`, `&#xA9;`), which a
    /// renderer would turn into the character; `AT&T` and `a & b` stay as typed.
    private static func startsEntity(_ cell: [UInt8], at start: Int) -> Bool {
        var i = start
        if i < cell.count && cell[i] == UInt8(ascii: "#") { i += 1 }
        let name = i
        while i < cell.count, i - name < 32 {
            let byte = cell[i] | 0x20
            guard (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (cell[i] >= UInt8(ascii: "0") && cell[i] <= UInt8(ascii: "9"))
            else { break }
            i += 1
        }
        return i > name && i < cell.count && cell[i] == UInt8(ascii: ";")
    }
}
