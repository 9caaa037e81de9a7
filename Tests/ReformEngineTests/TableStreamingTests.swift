import Foundation
import ReformEngine
import ReformSDK
import Testing

/// The table format lays its columns out over its first rows, then streams the rest in constant
/// memory (audit D16).
@Suite("Table streaming", .timeLimit(.minutes(10)))
struct TableStreamingTests {
    /// The table `records` make with a writer laid out over `layoutRows` rows, and whether any
    /// bytes had reached the output before ``TableWriter/finish()``.
    func table(_ records: [Value], layoutRows: Int, columns: [OutputColumn]? = nil) throws -> (text: String, streamed: Bool) {
        let folder = try TemporaryFolder()
        let output = try OutputFile.atomic(path: folder.path + "/out")
        var writer = TableWriter(output: output, columns: columns, layoutRows: layoutRows)
        for record in records { try writer.write(record) }
        let streamed = !output.buffer.isEmpty
        try writer.finish()
        try output.commit()
        return (try folder.read("out"), streamed)
    }

    @Test func rowsAfterTheLayoutStreamInItsWidths() throws {
        let records: [Value] = (1...12).map { ["name": .string(String(repeating: "n", count: $0 % 4 + 1)), "size": .int($0 * 7)] }
        let whole = try table(records, layoutRows: TableWriter.defaultLayoutRows)
        let streamed = try table(records, layoutRows: 5)
        #expect(!whole.streamed)
        #expect(streamed.streamed, "the header and first rows are written before the end")
        #expect(streamed.text == whole.text, "rows no wider than the first ones come out the same")
    }

    @Test func laterWiderCellsAreCutToTheLayout() throws {
        let records: [Value] = [["name": "ab", "size": 1], ["name": "abcd", "size": 22], ["name": "abcdefgh", "size": 333_333]]
        let text = try table(records, layoutRows: 2).text
        #expect(text == "name  size\n----  ----\nab       1\nabcd    22\nabc…  333…\n")
    }

    @Test func keysFirstSeenAfterTheLayoutAreNamedUnderTheTable() throws {
        let records: [Value] = [["a": 1], ["a": 2], ["a": 3, "b": "late"], ["c": true]]
        let text = try table(records, layoutRows: 2).text
        #expect(
            text == """
                a
                -
                1
                2
                3

                (not shown: keys b, c, first seen after the 2 rows the columns were laid out over; --format ndjson or csv shows every key)

                """)
        let declared = try table(records, layoutRows: 2, columns: [OutputColumn(key: "a")]).text
        #expect(!declared.contains("not shown"), "declared columns are the table's; other keys are not expected")
    }
}
