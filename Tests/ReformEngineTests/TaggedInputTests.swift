import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// `--tagged-input PATH`: lines `MANAGER<TAB>JSON` feed every manager of the run from one file
/// (mixed partitions); lines that belong to no manager are dead letters, once.
@Suite(.timeLimit(.minutes(10))) struct TaggedInputTests {
    static let pipeline = """
        reform: 1
        managers:
          rent: {}
          sale: {}
        reformers:
          listing:
            keys: { id: ID, name: NAME }
            from:
              rent: { id: id, name: name }
              sale: { id: sale_id, name: sale_name }
        runs:
          default: { managers: [rent, sale], reform: [listing], output: { format: ndjson, path: out.ndjson } }
        """

    /// 60 lines alternating between the managers in runs of different lengths.
    static func lines() -> [(manager: String, json: String)] {
        (1...60).map { i in
            i % 3 == 0
                ? ("sale", #"{"sale_id":\#(i),"sale_name":"出售 \#(i)\ttab"}"#)
                : ("rent", #"{"id":\#(i),"name":"rent \#(i)"}"#)
        }
    }

    func run(_ harness: RunHarness, tagged: [String] = [], inputs: [(String, String)] = []) async throws -> RunSummary {
        var options = RunOptions()
        options.taggedInputs = tagged.map(harness.path)
        options.inputs = inputs.map { ($0.0, harness.path($0.1)) }
        options.deadLetterPath = harness.path("dead.ndjson")
        return try await harness.run("pipeline.yaml", options: options)
    }

    @Test func eachManagerLandsItsLinesAsIfGivenItsOwnFile() async throws {
        let lines = Self.lines()
        let separate = try RunHarness()
        try separate.write("pipeline.yaml", Self.pipeline)
        try separate.write("rent.ndjson", lines.filter { $0.manager == "rent" }.map { $0.json + "\n" }.joined())
        try separate.write("sale.ndjson", lines.filter { $0.manager == "sale" }.map { $0.json + "\n" }.joined())
        _ = try await run(separate, inputs: [("rent", "rent.ndjson"), ("sale", "sale.ndjson")])

        let tagged = try RunHarness()
        try tagged.write("pipeline.yaml", Self.pipeline)
        try tagged.write("mixed.tsv", lines.map { "\($0.manager)\t\($0.json)\n" }.joined())
        let summary = try await run(tagged, tagged: ["mixed.tsv"])
        #expect(try tagged.read("out.ndjson") == separate.read("out.ndjson"))
        #expect(summary.recordsIn == 60)
        #expect(summary.rejected == 0)
        #expect(!tagged.exists("dead.ndjson"))
    }

    @Test func aLineOverTheLimitIsRejectedOnceByItsOwnManager() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        // Longer than the reader's buffer (1 MiB), so it is skipped without being held whole.
        let long = #"{"sale_id":1,"sale_name":""# + String(repeating: "x", count: 1_200_000) + #""}"#
        try harness.write("mixed.tsv", "rent\t{\"id\":1,\"name\":\"a\"}\nsale\t\(long)\nrent\t{\"id\":2,\"name\":\"b\"}\n")
        var options = RunOptions()
        options.taggedInputs = [harness.path("mixed.tsv")]
        options.deadLetterPath = harness.path("dead.ndjson")
        options.recordLimits.maximumDocumentSize = 1000
        let summary = try await harness.run("pipeline.yaml", options: options)
        #expect(summary.rejected == 1, "one line, one dead letter")
        #expect(summary.recordsIn == 3)
        let dead = try harness.lines("dead.ndjson")
        #expect(dead.count == 1)
        #expect(dead.first?.contains(#""manager":"sale""#) == true, "\(dead)")
    }

    @Test func linesOfNoManagerAreDeadLettersOnceAndBadJSONIsLocatedAfterTheTag() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        try harness.write(
            "mixed.tsv",
            """
            rent\t{"id":1,"name":"a"}
            {"id":2,"name":"no tag"}
            rnet\t{"id":3,"name":"typo"}
            sale\t{"sale_id":4, oops}
            sale\t{"sale_id":5,"sale_name":"e"}

            """)
        let summary = try await run(harness, tagged: ["mixed.tsv"])
        #expect(try harness.read("out.ndjson") == #"{"ID":1,"NAME":"a"}"# + "\n" + #"{"ID":5,"NAME":"e"}"# + "\n")
        let dead = try harness.lines("dead.ndjson")
        #expect(summary.rejected == 3)
        #expect(dead.count == 3, "each stray once, though both managers read the file: \(dead)")
        #expect(dead[0].contains(#""code":"untagged""#) && dead[0].contains("has no tag") && dead[0].contains("mixed.tsv:2"))
        #expect(dead[1].contains(#""code":"untagged""#) && dead[1].contains("did you mean 'rent'?"))
        #expect(dead[1].contains(#""text":"rnet\t{"#), "a stray keeps its whole line, tag and all: \(dead[1])")
        #expect(dead[2].contains(#""manager":"sale""#) && dead[2].contains(#""code":"invalid-json""#))
        #expect(dead[2].contains("column 20"), "the column counts the tag (sale<TAB> is 5 bytes; 15 without it): \(dead[2])")
    }

    @Test(arguments: [2, 5])
    func byteRangesOfATaggedFileAddUpToTheWholeFile(splits: Int) async throws {
        let text = Self.lines().map { "\($0.manager)\t\($0.json)\n" }.joined()
        let whole = try RunHarness()
        try whole.write("pipeline.yaml", Self.pipeline)
        try whole.write("mixed.tsv", text)
        _ = try await run(whole, tagged: ["mixed.tsv"])
        let expected = try whole.read("out.ndjson")
        // Per manager, the ranges in order: every range's rent records, then its sale records.
        var rent = ""
        var sale = ""
        let size = text.utf8.count
        for index in 0..<splits {
            let harness = try RunHarness()
            try harness.write("pipeline.yaml", Self.pipeline)
            try harness.write("mixed.tsv", text)
            _ = try await run(harness, tagged: ["mixed.tsv@\(size * index / splits):\(size * (index + 1) / splits)"])
            for line in try harness.lines("out.ndjson") {
                if line.contains("出售") { sale += line + "\n" } else { rent += line + "\n" }
            }
        }
        #expect(rent + sale == expected)
    }

    @Test func standardInputCannotFeedSeveralManagers() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        var options = RunOptions()
        options.taggedInputs = ["-"]
        let error = await #expect(throws: RunError.self) { try await harness.run("pipeline.yaml", options: options) }
        #expect(error?.description.contains("standard input can be read only once") == true)
    }
}
