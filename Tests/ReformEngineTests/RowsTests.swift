import Foundation
import ReformEngine
import ReformSDK
import Testing

/// The seeds' reminder list written in Swift: two value types render themselves into one row shape.
private protocol HasDate {
    var date: String { get }
}

private struct Event: HasDate, RowModel {
    var date: String
    var eventTitle: String
    var rowStyle: RowStyle { .highlight }
    func fill(_ row: inout Row) throws(RecordError) {
        try row.set("date", .string(date))
        try row.set("label", .string(eventTitle))
    }
}

private struct Festival: HasDate, RowModel {
    var date: String
    var festivalName: String
    func fill(_ row: inout Row) throws(RecordError) {
        try row.set("date", .string(date))
        try row.set("label", .string(festivalName))
    }
}

@Suite("Rows", .timeLimit(.minutes(10)))
struct RowsTests {
    static let shape = RowShape(
        columns: [RowShape.Column("date", format: .date(DatePattern("M月D日"))), RowShape.Column("label")], sortedBy: "date")

    /// Renders `rows` through a writer of `format` and returns the text.
    static func render(_ list: inout RowList, _ format: OutputFormat, colour: Bool = false, maxWidth: Int? = nil) throws -> String {
        let folder = try TemporaryFolder()
        let output = try OutputFile.atomic(path: folder.path + "/out")
        var writer = format.makeWriter(
            columns: list.shape.outputColumns, output: output, colour: colour, maxWidth: maxWidth, title: "reminder")
        try list.write(to: &writer)
        try writer.finish()
        try output.commit()
        return try folder.read("out")
    }

    @Test func heterogeneousRecordsGiveTheirDataToOneRowShape() throws {
        let items: [any HasDate & RowModel] = [
            Festival(date: "2026-02-14", festivalName: "情人节"),
            Event(date: "2026-02-14", eventTitle: "送礼物"),
            Festival(date: "2026-01-01", festivalName: "元旦"),
        ]
        var list = RowList(shape: RowsTests.shape)
        for item in items { try item.giveData(to: &list) }
        #expect(try RowsTests.render(&list, .csv) == "date,label\n1月1日,元旦\n2月14日,情人节\n2月14日,送礼物\n")
        var styled = RowList(shape: RowsTests.shape)
        for item in items { try item.giveData(to: &styled) }
        #expect(try RowsTests.render(&styled, .markdown).hasSuffix("| 2月14日 | 情人节 |\n| **2月14日** | **送礼物** |\n"))
    }

    @Test func theSwiftRecordTypesRenderWhatTheShippedPipelineRenders() throws {
        let events = [("2026-02-14", "送礼物"), ("2026-02-10", "订年夜饭"), ("2026-09-28", "买回家的车票"), ("2026-12-24", "Secret Santa 交换礼物")]
        let festivals = [
            ("2026-01-01", "元旦"), ("2026-02-14", "情人节"), ("2026-02-17", "春节"), ("2026-10-01", "国庆节"), ("2026-12-25", "Christmas 圣诞节"),
        ]
        let items: [any RowModel] =
            events.map { Event(date: $0.0, eventTitle: $0.1) } + festivals.map { Festival(date: $0.0, festivalName: $0.1) }
        for format in [OutputFormat.csv, .markdown, .html, .ndjson] {
            var list = RowList(shape: RowsTests.shape)
            for item in items { try item.giveData(to: &list) }
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let golden = try String(
                contentsOf: root.appendingPathComponent("Tests/ReformCLITests/Snapshots/run-reminders-\(format).txt"), encoding: .utf8)
            let stdout = golden.components(separatedBy: "--- stdout\n")[1].components(separatedBy: "--- stderr\n")[0]
            #expect(try RowsTests.render(&list, format) == stdout, "\(format)")
        }
    }

    @Test func aValueTheFormatCannotReadRejectsTheRecord() throws {
        var list = RowList(shape: RowsTests.shape)
        #expect(throws: RecordError(code: "not-a-date", message: "column 'date': \"soon\" is not a date (ISO 8601 or epoch seconds)")) {
            try Event(date: "soon", eventTitle: "x").giveData(to: &list)
        }
        var row = Row(shape: RowsTests.shape)
        #expect(throws: RecordError.self) { try row.set("when", .null) }
    }

    @Test func datePatterns() throws {
        let cases: [(String, Value, String)] = [
            ("YYYY-MM-DD", "2026-02-14", "2026-02-14"),
            ("M月D日", "2026-02-04", "2月4日"),
            ("DD/MM/YY HH:mm:ss", "2026-02-04T09:05:07Z", "04/02/26 09:05:07"),
            ("YYYY-MM-DD HH:mm", "2026-02-14T23:30:00+08:00", "2026-02-14 15:30"),
            ("YYYY-MM-DD", .int(1_767_225_600), "2026-01-01"),
        ]
        for (pattern, value, expected) in cases {
            #expect(try ValueFormat.date(DatePattern(pattern)).apply(value) == .string(expected), "\(pattern)")
        }
        #expect(try ValueFormat.date(DatePattern("YYYY")).apply(.null) == .null)
    }

    @Test func numberPatterns() throws {
        let cases: [(String, Value, String)] = [
            ("#,##0.00", .double(1234567.891), "1,234,567.89"),
            ("0", .double(2.5), "3"),
            ("0.0%", .double(0.1234), "12.3%"),
            ("¥#,##0", .int(-1200), "¥-1,200"),
            ("0.00 元", .string("88.8"), "88.80 元"),
            ("0.00", .double(-0.001), "0.00"),
        ]
        for (pattern, value, expected) in cases {
            let format = try #require(NumberPattern(pattern))
            #expect(try ValueFormat.number(format).apply(value) == .string(expected), "\(pattern)")
        }
        #expect(NumberPattern("n/a") == nil)
        #expect(throws: RecordError.self) { try ValueFormat.number(#require(NumberPattern("0"))).apply("many") }
    }

    @Test func stylesWithColoursShowOnTerminalsAndInHTML() throws {
        let shape = RowShape(columns: [RowShape.Column("a")])
        struct Item: RowModel {
            let a: Int, rowStyle: RowStyle
            func fill(_ row: inout Row) throws(RecordError) { try row.set("a", .int(a)) }
        }
        let styles: [RowStyle] = [.plain, RowStyle(colour: .red), RowStyle(emphasis: .highlight, colour: .blue), .dim]
        func list() throws -> RowList {
            var list = RowList(shape: shape)
            for (i, style) in styles.enumerated() { try Item(a: i, rowStyle: style).giveData(to: &list) }
            return list
        }
        var table = try list()
        #expect(
            try RowsTests.render(&table, .table, colour: true)
                == "\u{1B}[1ma\u{1B}[0m\n-\n0\n\u{1B}[31m1\u{1B}[0m\n\u{1B}[1;34m2\u{1B}[0m\n\u{1B}[2m3\u{1B}[0m\n")
        var page = try list()
        let html = try RowsTests.render(&page, .html)
        #expect(
            html.contains(
                "<tr><td class=\"number\">0</td></tr>\n<tr class=\"red\"><td class=\"number\">1</td></tr>\n<tr class=\"highlight blue\">"))
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        var markdown = try list()
        #expect(try RowsTests.render(&markdown, .markdown) == "| a |\n| --- |\n| 0 |\n| 1 |\n| **2** |\n| _3_ |\n")
    }

    @Test func htmlEscapesCellsAndTitle() throws {
        let folder = try TemporaryFolder()
        let output = try OutputFile.atomic(path: folder.path + "/out")
        var writer = OutputFormat.html.makeWriter(output: output, title: "<a & b>")
        try writer.write(["x": "<b>\"1\" & 2</b>\nnext"])
        try writer.finish()
        try output.commit()
        let html = try folder.read("out")
        #expect(html.contains("<title>&lt;a &amp; b&gt;</title>"))
        #expect(html.contains("<td>&lt;b&gt;&quot;1&quot; &amp; 2&lt;/b&gt;<br>next</td>"))
    }

    @Test func cjkRowsLineUpAndAreCutToTheTerminalWidth() throws {
        var list = RowList(shape: RowsTests.shape)
        try Event(date: "2026-12-24", eventTitle: "Secret Santa 交换礼物").giveData(to: &list)
        try Festival(date: "2026-01-01", festivalName: "元旦").giveData(to: &list)
        #expect(
            try RowsTests.render(&list, .table, maxWidth: 20) == """
                date      label
                --------  ----------
                1月1日    元旦
                12月24日  Secret Sa…

                """)
    }
}
