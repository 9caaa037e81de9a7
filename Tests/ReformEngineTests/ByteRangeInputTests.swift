import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// `--input MANAGER=PATH@START:END`: a record belongs to the range in which its line starts
/// (Hadoop's split rule), so ranges that cover a file read each record once, in order, and every
/// bad line is a dead letter of exactly one range, named by its byte offset in the file.
@Suite(.timeLimit(.minutes(10))) struct ByteRangeInputTests {
    static let pipeline = """
        reform: 1
        managers:
          items: {}
        reformers:
          item:
            keys: { id: ID, name: NAME }
            map: { id: id, name: name }
        runs:
          default: { managers: [items], reform: [item], output: { format: ndjson, path: out.ndjson } }
        """

    /// 300 lines, every 37th not JSON, a blank line, non-ASCII text, lines of different lengths.
    static func input() -> String {
        (1...300).map { i in
            if i % 37 == 0 { return #"{"id": \#(i), "name": broken"# }
            if i == 150 { return "" }
            return #"{"id":\#(i),"name":"项目 \#(i) \#(String(repeating: "x", count: i % 23))"}"#
        }.joined(separator: "\n") + "\n"
    }

    func run(_ harness: RunHarness, input: String, dead: String) async throws -> RunSummary {
        var options = RunOptions()
        options.inputs = [("items", harness.path(input))]
        options.deadLetterPath = harness.path(dead)
        return try await harness.run("pipeline.yaml", options: options)
    }

    /// A library caller gets the command line's reason for a malformed range, not a missing file.
    @Test func aMalformedRangeSaysWhatIsWrong() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        try harness.write("in.ndjson", Self.input())
        await #expect {
            try await run(harness, input: "in.ndjson@100:50", dead: "dead.ndjson")
        } throws: { error in
            (error as? RunError)?.message.contains("in.ndjson@100:50' ends (50) before it starts (100); write PATH@START:END") == true
        }
    }

    @Test(arguments: [1, 2, 3, 7, 16])
    func rangesCoveringTheFileReadEveryRecordOnceInOrder(splits: Int) async throws {
        let text = Self.input()
        let size = text.utf8.count
        let whole = try RunHarness()
        try whole.write("pipeline.yaml", Self.pipeline)
        try whole.write("in.ndjson", text)
        _ = try await run(whole, input: "in.ndjson", dead: "dead.ndjson")
        let expected = try whole.read("out.ndjson")

        // Cuts at even shares of the file, and at a line's first byte, its newline and its middle.
        let newline = Array(text.utf8).firstIndex(of: 0x0A) ?? 0
        var cuts = (0...splits).map { size * $0 / splits }
        if splits == 16 { cuts = ([0, newline, newline + 1, newline + 5] + cuts).sorted() }
        var outputs = ""
        var offsets: [String] = []
        var records = 0
        for (start, end) in zip(cuts, cuts.dropFirst()) {
            let harness = try RunHarness()
            try harness.write("pipeline.yaml", Self.pipeline)
            try harness.write("in.ndjson", text)
            let summary = try await run(harness, input: "in.ndjson@\(start):\(end)", dead: "dead.ndjson")
            records += summary.recordsIn
            outputs += (try? harness.read("out.ndjson")) ?? ""
            let dead = (try? harness.lines("dead.ndjson")) ?? []
            offsets += dead.compactMap { line in
                line.firstRange(of: "in.ndjson@").map { String(line[$0.upperBound...].prefix { $0.isNumber }) }
            }
        }
        #expect(outputs == expected)
        #expect(records == 299, "every non-blank line once")
        // The bad lines, named by the offsets where they start in the file.
        var starts: [String] = []
        var offset = 0
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if (number + 1) % 37 == 0 { starts.append(String(offset)) }
            offset += line.utf8.count + 1
        }
        #expect(offsets == starts)
    }

    /// A record its reformer rejects (no `name`: lines 41, 82, …) is named by the offset where its
    /// line starts in the file, as the input stage names a bad line, not by its line in the
    /// range (`in.ndjson:3` in a range starting mid-file pointed at another line).
    @Test func aReformerStepsDeadLettersNameTheFileOffsetInARange() async throws {
        let lines = (1...120).map { i in
            i % 41 == 0 ? #"{"id":\#(i)}"# : #"{"id":\#(i),"name":"n\#(String(repeating: "x", count: i % 7))"}"#
        }
        let text = lines.joined(separator: "\n") + "\n"
        var starts: [String] = []
        var offset = 0
        for (number, line) in lines.enumerated() {
            if (number + 1) % 41 == 0 { starts.append("in.ndjson@\(offset)") }
            offset += line.utf8.count + 1
        }
        let size = text.utf8.count
        var inputs: [String] = []
        for (start, end) in [(0, size / 3), (size / 3, size * 2 / 3), (size * 2 / 3, size)] {
            let harness = try RunHarness()
            try harness.write("pipeline.yaml", Self.pipeline)
            try harness.write("in.ndjson", text)
            _ = try await run(harness, input: "in.ndjson@\(start):\(end)", dead: "dead.ndjson")
            for line in (try? harness.lines("dead.ndjson")) ?? [] {
                #expect(line.contains(#""stage":"reformer 'item'"#), "\(line)")
                inputs += line.firstRange(of: #""input":""#).map { [String(line[$0.upperBound...].prefix { $0 != "\"" })] } ?? []
            }
        }
        #expect(inputs.map { $0.split(separator: "/").last.map(String.init) ?? $0 } == starts)
    }

    @Test func aRangeOfACompressedFileIsRefused() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        try harness.write("in.ndjson.gz", "not really")
        await #expect(throws: RunError.self) { try await run(harness, input: "in.ndjson.gz@0:5", dead: "dead.ndjson") }
    }
}
