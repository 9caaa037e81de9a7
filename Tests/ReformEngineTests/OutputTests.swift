import Foundation
import ReformEngine
import ReformSDK
import Testing

/// The output writers, tested through the public API: records go through a writer into an
/// `OutputFile.atomic` temporary file, which is read back and compared byte for byte.
///
/// The suites for each format are nested in this one (`OutputTests/NDJSON`, …) so that
/// `swift test --filter OutputTests` runs them all. Expected outputs are written inline; to
/// re-record one after an intended change, run the failing test and paste the printed actual text.
@Suite(.timeLimit(.minutes(10)))
struct OutputTests {
    /// A small mixed set: ASCII, CJK, emoji, a combining mark, quotes and commas, a newline, a pipe,
    /// nulls, a nested array and object, and a key (`meta`) first seen in the last record.
    static let mixed: [Value] = [
        ["name": "Alice", "city": "上海", "count": 3, "note": "say \"hi\", then go", "tags": ["a", "b"]],
        ["name": "Bob 🎉", "city": "Paris", "count": 12.5, "note": "line1\nline2", "tags": nil],
        ["name": "Zoe\u{308}", "city": nil, "count": nil, "note": "a|b", "meta": ["k": 1, "v": [true, false]]],
    ]

    /// Writes `records` in `format` to a temporary file and returns the file's text.
    static func render(
        _ format: OutputFormat,
        _ records: [Value],
        styles: [RowStyle] = [],
        columns: [OutputColumn]? = nil,
        colour: Bool = false,
        maxWidth: Int? = nil
    ) throws -> Rendered {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("reform-output-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try OutputFile.atomic(path: path)
        var writer = format.makeWriter(columns: columns, output: output, colour: colour, maxWidth: maxWidth)
        for (i, record) in records.enumerated() {
            try writer.write(record, style: i < styles.count ? styles[i] : .plain)
        }
        try writer.finish()
        try output.commit()
        let data = try #require(FileManager.default.contents(atPath: path))
        return Rendered(String(decoding: data, as: UTF8.self))
    }

    /// Output text compared byte for byte (`String`'s `==` would call `e` + U+0308 equal to `ë`).
    struct Rendered: Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
        let text: String
        init(_ text: String) { self.text = text }
        init(stringLiteral text: String) { self.text = text }
        var description: String { text.debugDescription }
        static func == (lhs: Rendered, rhs: Rendered) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }
    }

    /// The error a writer throws for `records`, as its text.
    static func failure(_ format: OutputFormat, _ records: [Value], columns: [OutputColumn]? = nil) -> String? {
        do {
            _ = try render(format, records, columns: columns)
            return nil
        } catch let error as OutputError {
            return error.message
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test func everyFormatParsesFromItsName() throws {
        for format in OutputFormat.allCases {
            #expect(try OutputFormat(parsing: format.rawValue) == format)
        }
        #expect(try OutputFormat(parsing: "CSV") == .csv)
    }

    @Test func unknownFormatListsTheChoices() {
        let error = #expect(throws: OutputFormatError.self) { try OutputFormat(parsing: "parquet") }
        #expect(error?.suggestion == nil)
        #expect(error?.description == "unknown output format 'parquet'; choose one of: ndjson, json, table, csv, markdown, html")
    }

    @Test(arguments: [("cvs", OutputFormat.csv), ("jsonl", .ndjson), ("md", .markdown), ("tab", .table), ("jsn", .json)])
    func nearMissSuggestsTheFormat(text: String, suggestion: OutputFormat) {
        let error = #expect(throws: OutputFormatError.self) { try OutputFormat(parsing: text) }
        #expect(error?.suggestion == suggestion)
        #expect(
            error?.description
                == "unknown output format '\(text)'; did you mean '\(suggestion.rawValue)'? "
                + "Choose one of: ndjson, json, table, csv, markdown, html"
        )
    }

    @Test func factoryMakesTheFormatsWriter() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reform-\(UUID().uuidString)").path
        let output = try OutputFile.atomic(path: path)
        defer { output.abandon() }
        #expect(OutputFormat.ndjson.makeWriter(output: output) is NDJSONWriter)
        #expect(OutputFormat.json.makeWriter(output: output) is JSONArrayWriter)
        #expect(OutputFormat.table.makeWriter(output: output) is TableWriter)
        #expect(OutputFormat.csv.makeWriter(output: output) is CSVWriter)
        #expect(OutputFormat.markdown.makeWriter(output: output) is MarkdownWriter)
        #expect(OutputFormat.html.makeWriter(output: output) is HTMLWriter)
    }

    @Test(arguments: OutputFormat.allCases)
    func emptyInputWithoutColumns(format: OutputFormat) throws {
        let actual = try OutputTests.render(format, [])
        switch format {
        case .json: #expect(actual == "[]\n")
        case .html:
            #expect(actual.text.hasPrefix("<!DOCTYPE html>") && actual.text.contains("<tbody>\n</tbody>\n</table>\n"))
            #expect(actual.text.hasSuffix("</body>\n</html>\n"))
        default: #expect(actual == "")
        }
    }

    @Test func emptyInputWithExplicitColumns() throws {
        let columns = [OutputColumn(header: "Name", key: "name"), OutputColumn(key: "city")]
        #expect(try OutputTests.render(.ndjson, [], columns: columns) == "")
        #expect(try OutputTests.render(.json, [], columns: columns) == "[]\n")
        #expect(try OutputTests.render(.csv, [], columns: columns) == "Name,city\n")
        #expect(try OutputTests.render(.markdown, [], columns: columns) == "| Name | city |\n| --- | --- |\n")
        #expect(try OutputTests.render(.table, [], columns: columns) == "Name  city\n----  ----\n")
    }

    @Test(arguments: [OutputFormat.table, .csv, .markdown])
    func columnarFormatsNeedObjects(format: OutputFormat) {
        #expect(
            OutputTests.failure(format, [["a": 1], "loose"])
                == "record 2 is a string, but \(format.rawValue) output needs objects whose keys name the columns; "
                + "write it with --format ndjson or json"
        )
    }
}
