public import ReformSDK

/// Writes a standalone HTML page holding one table, streamed: open it in any browser, or mail it.
///
/// The page names itself (`<title>` and a heading), counts its records under the table, declares
/// its language and a viewport (it reads on a phone), and carries its own stylesheet and a small
/// inline script that sorts the rows by a column when its heading is clicked; it refers to nothing
/// outside itself. A row's emphasis and colour become its classes (`<tr class="highlight red">`).
/// Cells read as in the table format and are escaped (`&`, `<`, `>`, `"`), line breaks become
/// `<br>`; a cell whose whole text is an `http://` or `https://` URL is a link to it. Number cells
/// (JSON numbers, and text such as `1,234.50`, `-¥3` or `12%`) have the class `number` and are
/// right-aligned, as is the heading of a column whose cells in the first 1,000 rows are all
/// numbers: the head waits for those rows, then rows stream. Columns are the explicit list, or the
/// keys of the first record; keys first seen later are left out. No records still make a complete
/// page (an empty table).
public struct HTMLWriter: RecordWriter {
    /// Rows held before the head is written, to tell which columns hold numbers.
    static let rowsBeforeHead = 1_000

    private let output: OutputFile
    private let title: String
    private var columns: [OutputColumn]
    private var count = 0
    private var cell: [UInt8] = []
    private var row: [UInt8] = []
    /// The rows written before the head, and what each column held in them.
    private var heldRows: [UInt8] = []
    private var kinds: [ColumnKind] = []
    private var headWritten = false

    /// What a column's non-empty cells held so far.
    private enum ColumnKind {
        case empty
        case numbers
        case text
    }

    /// A writer into `output`; `columns` empty (or `nil`) takes them from the first record.
    public init(output: OutputFile, columns: [OutputColumn]? = nil, title: String) {
        self.output = output
        self.columns = columns ?? []
        self.title = title
    }

    /// Appends the record's row (held with the first rows until the head is written), and flushes
    /// when full.
    public mutating func write(_ record: Value, style: RowStyle) throws(OutputError) {
        count += 1
        let object = try CellText.object(record, number: count, format: .html, output: output)
        if count == 1, columns.isEmpty { columns = object.keys.map { OutputColumn(key: $0) } }
        if kinds.count != columns.count { kinds = Array(repeating: .empty, count: columns.count) }
        row.removeAll(keepingCapacity: true)
        let classes = style.cssClasses
        row.append(contentsOf: classes.isEmpty ? "<tr>".utf8 : "<tr class=\"\(classes.joined(separator: " "))\">".utf8)
        for (index, column) in columns.enumerated() {
            let value = object[column.key] ?? .null
            cell.removeAll(keepingCapacity: true)
            CellText.append(value, into: &cell)
            let isNumber = HTMLWriter.isNumber(value)
            if !headWritten, !cell.isEmpty {
                kinds[index] = isNumber && kinds[index] != .text ? .numbers : .text
            }
            row.append(contentsOf: isNumber ? "<td class=\"number\">".utf8 : "<td>".utf8)
            if HTMLWriter.isLink(value) {
                row.append(contentsOf: "<a href=\"".utf8)
                HTMLWriter.appendEscaped(cell, into: &row)
                row.append(contentsOf: "\" rel=\"noopener noreferrer\">".utf8)
                HTMLWriter.appendEscaped(cell, into: &row)
                row.append(contentsOf: "</a>".utf8)
            } else {
                HTMLWriter.appendEscaped(cell, into: &row)
            }
            row.append(contentsOf: "</td>".utf8)
        }
        row.append(contentsOf: "</tr>\n".utf8)
        if headWritten {
            output.buffer.append(contentsOf: row)
            try output.flushIfFull()
        } else {
            heldRows.append(contentsOf: row)
            if count >= HTMLWriter.rowsBeforeHead { try writeHead() }
        }
    }

    /// Closes the table, counts the records and ends the page with its sorting script (writing the
    /// head and the held rows first when fewer than 1,000 came).
    public mutating func finish() throws(OutputError) {
        if !headWritten { try writeHead() }
        output.buffer.append(contentsOf: "</tbody>\n</table>\n<p class=\"count\">".utf8)
        output.buffer.append(contentsOf: "\(NumberPattern.grouped(count)) record\(count == 1 ? "" : "s")</p>\n".utf8)
        output.buffer.append(contentsOf: HTMLWriter.script.utf8)
        output.buffer.append(contentsOf: "</body>\n</html>\n".utf8)
    }

    /// The page head, the heading, the table head with number columns marked, and the held rows.
    private mutating func writeHead() throws(OutputError) {
        headWritten = true
        output.buffer.append(contentsOf: "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n".utf8)
        output.buffer.append(contentsOf: "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>".utf8)
        escape(title)
        output.buffer.append(contentsOf: "</title>\n<style>\n".utf8)
        output.buffer.append(contentsOf: HTMLWriter.stylesheet.utf8)
        output.buffer.append(contentsOf: "</style>\n</head>\n<body>\n<h1>".utf8)
        escape(title)
        output.buffer.append(contentsOf: "</h1>\n<table>\n".utf8)
        if !columns.isEmpty {
            output.buffer.append(contentsOf: "<thead>\n<tr>".utf8)
            for (index, column) in columns.enumerated() {
                let numbers = index < kinds.count && kinds[index] == .numbers
                output.buffer.append(contentsOf: numbers ? "<th class=\"number\">".utf8 : "<th>".utf8)
                escape(column.header)
                output.buffer.append(contentsOf: "</th>".utf8)
            }
            output.buffer.append(contentsOf: "</tr>\n</thead>\n".utf8)
        }
        output.buffer.append(contentsOf: "<tbody>\n".utf8)
        output.buffer.append(contentsOf: heldRows)
        heldRows = []
        try output.flushIfFull()
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

    /// Whether `value` is a web address to link: text that is one `http://` or `https://` URL
    /// (no spaces or control characters), any case of the scheme.
    static func isLink(_ value: Value) -> Bool {
        guard case .string(let text) = value else { return false }
        let lowered = text.prefix(8).lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else { return false }
        let host = text.drop { $0 != "/" }.dropFirst(2)
        return !host.isEmpty && !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || $0.properties.isWhitespace }
    }

    /// Whether a cell shows a number: a JSON number, or text such as `1,234.50`, `-3`, `1.5e3`,
    /// `¥12`, `-$3.50` or `12%` (a sign, a currency symbol, digits with `,` `.` `_` `'` or spaces
    /// between them, an exponent, then a currency symbol or `%`).
    static func isNumber(_ value: Value) -> Bool {
        switch value {
        case .int, .double: return true
        case .string(let string): return looksNumeric(string)
        default: return false
        }
    }

    private static func looksNumeric(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty, scalars.count <= 64 else { return false }
        func isDigit(_ s: Unicode.Scalar) -> Bool { s >= "0" && s <= "9" }
        func isCurrency(_ s: Unicode.Scalar) -> Bool { s.properties.generalCategory == .currencySymbol }
        var i = 0
        if scalars[i] == "-" || scalars[i] == "+" || scalars[i] == "\u{2212}" { i += 1 }
        if i < scalars.count, isCurrency(scalars[i]) { i += 1 }
        if i < scalars.count, scalars[i] == "-" { i += 1 }
        guard i < scalars.count, isDigit(scalars[i]) || (scalars[i] == "." && i + 1 < scalars.count && isDigit(scalars[i + 1]))
        else { return false }
        var sawDigit = false
        while i < scalars.count {
            let s = scalars[i]
            if isDigit(s) {
                sawDigit = true
            } else if [",", ".", "_", "'", " "].contains(s), i + 1 < scalars.count, isDigit(scalars[i + 1]) {
                // A separator between digits.
            } else {
                break
            }
            i += 1
        }
        if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
            var j = i + 1
            if j < scalars.count, scalars[j] == "-" || scalars[j] == "+" { j += 1 }
            if j < scalars.count, isDigit(scalars[j]) {
                i = j
                while i < scalars.count, isDigit(scalars[i]) { i += 1 }
            }
        }
        if i < scalars.count, scalars[i] == "%" || isCurrency(scalars[i]) { i += 1 }
        return sawDigit && i == scalars.count
    }

    /// The page's styles: the table, number cells and headings, sortable headings, and one rule
    /// per emphasis and colour.
    static let stylesheet: String = {
        var css = """
            body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
            h1 { font-size: 1.3rem; }
            table { border-collapse: collapse; }
            th, td { padding: 0.3rem 0.8rem; text-align: left; border-bottom: 1px solid #ddd; }
            th { border-bottom: 2px solid #444; cursor: pointer; user-select: none; }
            th[aria-sort="ascending"]::after { content: " \\25B2"; }
            th[aria-sort="descending"]::after { content: " \\25BC"; }
            th.number, td.number { text-align: right; font-variant-numeric: tabular-nums; }
            p.count { color: #666; }
            tr.highlight { font-weight: bold; background: #fff4b8; }
            tr.dim { opacity: 0.55; }
            tr.bold { font-weight: bold; }
            @media (max-width: 40rem) { body { margin: 0.5rem; } th, td { padding: 0.25rem 0.4rem; } }

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

    /// Sorts the rows by a column when its heading is clicked (or chosen with Enter), ascending
    /// then descending; number columns compare as numbers, others as text in the reader's locale,
    /// empty cells last, ties in page order. Inline, so the page fetches nothing.
    static let script = """
        <script>
        (function () {
          var table = document.querySelector("table");
          if (!table || !table.tHead || !table.tBodies.length) return;
          var body = table.tBodies[0], heads = table.tHead.rows[0].cells;
          function key(row, index) {
            var cell = row.cells[index], text = cell ? cell.textContent.trim() : "";
            if (cell && cell.classList.contains("number")) {
              var n = parseFloat(text.replace(/[^0-9eE.+\\-\\u2212]/g, "").replace("\\u2212", "-"));
              if (!isNaN(n)) return [0, n];
            }
            return text === "" ? [2, ""] : [1, text];
          }
          function sortBy(index) {
            var head = heads[index], direction = head.getAttribute("aria-sort") === "ascending" ? -1 : 1;
            var rows = Array.prototype.map.call(body.rows, function (row, order) { return [key(row, index), order, row]; });
            rows.sort(function (a, b) {
              if (a[0][0] !== b[0][0]) return a[0][0] - b[0][0];
              var c = a[0][0] === 0 ? a[0][1] - b[0][1] : String(a[0][1]).localeCompare(String(b[0][1]), undefined, { numeric: true });
              return a[0][0] === 2 ? a[1] - b[1] : c * direction || a[1] - b[1];
            });
            rows.forEach(function (entry) { body.appendChild(entry[2]); });
            Array.prototype.forEach.call(heads, function (h) { h.setAttribute("aria-sort", "none"); });
            head.setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
          }
          Array.prototype.forEach.call(heads, function (head, index) {
            head.tabIndex = 0;
            head.setAttribute("aria-sort", "none");
            head.addEventListener("click", function () { sortBy(index); });
            head.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(index); } });
          });
        })();
        </script>

        """
}
