public import ReformSDK

/// Writes a standalone HTML page holding one table, streamed: open it in any browser, or mail it.
///
/// The page carries its own stylesheet, with a class per ``RowStyle`` word: a row's emphasis and
/// colour become its classes (`<tr class="highlight red">`), number cells the class `number`
/// (right-aligned). Cell text is escaped (`&`, `<`, `>`, `"`) and line breaks become `<br>`; cells
/// read as in the table format. Columns are the explicit list, or the keys of the first record;
/// keys first seen later are left out. No records still make a complete page (an empty table).
public struct HTMLWriter: RecordWriter {
    private let output: OutputFile
    private let title: String
    private var columns: [OutputColumn]
    private var count = 0
    private var cell: [UInt8] = []

    /// A writer into `output`; `columns` empty (or `nil`) takes them from the first record.
    public init(output: OutputFile, columns: [OutputColumn]? = nil, title: String) {
        self.output = output
        self.columns = columns ?? []
        self.title = title
    }

    /// Appends the record's row (after the page head, for the first), and flushes when full.
    public mutating func write(_ record: Value, style: RowStyle) throws(OutputError) {
        count += 1
        let object = try CellText.object(record, number: count, format: .html, output: output)
        if count == 1 {
            if columns.isEmpty { columns = object.keys.map { OutputColumn(key: $0) } }
            writeHead()
        }
        let classes = style.cssClasses
        output.buffer.append(contentsOf: classes.isEmpty ? "<tr>".utf8 : "<tr class=\"\(classes.joined(separator: " "))\">".utf8)
        for column in columns {
            let value = object[column.key] ?? .null
            switch value {
            case .int, .double: output.buffer.append(contentsOf: "<td class=\"number\">".utf8)
            default: output.buffer.append(contentsOf: "<td>".utf8)
            }
            cell.removeAll(keepingCapacity: true)
            CellText.append(value, into: &cell)
            HTMLWriter.appendEscaped(cell, into: &output.buffer)
            output.buffer.append(contentsOf: "</td>".utf8)
        }
        output.buffer.append(contentsOf: "</tr>\n".utf8)
        try output.flushIfFull()
    }

    /// Closes the table and the page (writing the head first when no record came).
    public mutating func finish() throws(OutputError) {
        if count == 0 { writeHead() }
        output.buffer.append(contentsOf: "</tbody>\n</table>\n</body>\n</html>\n".utf8)
    }

    private mutating func writeHead() {
        output.buffer.append(contentsOf: "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>".utf8)
        escape(title)
        output.buffer.append(contentsOf: "</title>\n<style>\n".utf8)
        output.buffer.append(contentsOf: HTMLWriter.stylesheet.utf8)
        output.buffer.append(contentsOf: "</style>\n</head>\n<body>\n<table>\n".utf8)
        if !columns.isEmpty {
            output.buffer.append(contentsOf: "<thead>\n<tr>".utf8)
            for column in columns {
                output.buffer.append(contentsOf: "<th>".utf8)
                escape(column.header)
                output.buffer.append(contentsOf: "</th>".utf8)
            }
            output.buffer.append(contentsOf: "</tr>\n</thead>\n".utf8)
        }
        output.buffer.append(contentsOf: "<tbody>\n".utf8)
    }

    private mutating func escape(_ text: String) {
        cell.removeAll(keepingCapacity: true)
        CellText.appendUTF8(text, into: &cell)
        HTMLWriter.appendEscaped(cell, into: &output.buffer)
    }

    /// The escaping loop, with the output buffer borrowed once rather than once a byte.
    private static func appendEscaped(_ cell: [UInt8], into buffer: inout [UInt8]) {
        var i = 0
        while i < cell.count {
            switch cell[i] {
            case UInt8(ascii: "&"): buffer.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): buffer.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): buffer.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): buffer.append(contentsOf: "&quot;".utf8)
            case 0x0D where i + 1 < cell.count && cell[i + 1] == 0x0A:
                buffer.append(contentsOf: "<br>".utf8)
                i += 1
            case 0x0A, 0x0D: buffer.append(contentsOf: "<br>".utf8)
            default: buffer.append(cell[i])
            }
            i += 1
        }
    }

    /// The page's styles: the table, number cells, and one rule per emphasis and colour.
    static let stylesheet: String = {
        var css = """
            body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
            table { border-collapse: collapse; }
            th, td { padding: 0.3rem 0.8rem; text-align: left; border-bottom: 1px solid #ddd; }
            th { border-bottom: 2px solid #444; }
            td.number { text-align: right; font-variant-numeric: tabular-nums; }
            tr.highlight { font-weight: bold; background: #fff4b8; }
            tr.dim { opacity: 0.55; }
            tr.bold { font-weight: bold; }

            """
        let colours: [RowStyle.Colour: String] = [
            .black: "#000000", .red: "#c62828", .green: "#2e7d32", .yellow: "#b8860b", .blue: "#1565c0",
            .magenta: "#8e24aa", .cyan: "#00838f", .white: "#9e9e9e",
        ]
        for colour in RowStyle.Colour.allCases {
            css += "tr.\(colour.rawValue) { color: \(colours[colour] ?? "inherit"); }\n"
        }
        return css
    }()
}
