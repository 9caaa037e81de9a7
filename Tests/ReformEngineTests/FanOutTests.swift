import ReformEngine
import Testing

/// A run with several outputs whose chains the compiled path covers writes every output from the
/// line's bytes (the fan-out); it must write what the general path writes to each, reject the
/// same records in the same order with the same reasons, and count the same — on the lines
/// ``CompiledChainTests`` makes to trip the compiled path, at one job and two.
@Suite("Several compiled outputs write what the general path writes", .timeLimit(.minutes(10)))
struct FanOutTests {
    static let pipeline =
        CompiledChainTests.pipeline + """

              fanned:
                outputs:
                  - { reform: [listing, affordable], format: ndjson, path: x.ndjson }
                  - { reform: [tagged], format: ndjson, path: y.ndjson }
                  - { rows: listing-row, format: csv, path: z.csv }
                  - { reform: [tagged], rows: tag-row, format: csv, path: v.csv }
              sorted-too:
                outputs:
                  - { reform: [listing, affordable, ordered], format: ndjson, path: x.ndjson }
                  - { reform: [listing, shaped], format: ndjson, path: y.ndjson }
              plain-and-labelled:
                outputs:
                  - { reform: [listing], format: ndjson, path: x.ndjson }
                  - { reform: [listing, labelled], format: ndjson, path: y.ndjson }
              not-all-compiled:
                outputs:
                  - { reform: [listing], format: ndjson, path: x.ndjson }
                  - { reform: [listing, ordered, priced], format: ndjson, path: y.ndjson }
              array-left:
                outputs:
                  - { reform: [listing, affordable], format: json, path: x.json }
                  - { reform: [tagged], format: ndjson, path: y.ndjson }
                  - { reform: [listing, labelled], format: ndjson, path: z.ndjson }
                  - { reform: [listing], rows: listing-row, format: csv, path: w.csv }
              none-compiled:
                outputs:
                  - { reform: [listing, ordered, priced], format: ndjson, path: x.ndjson }
                  - { reform: [listing], format: json, path: y.json }
            """

    /// Ordinary records around the tripping ones: most lines then take the fan-out, and the
    /// filters drop some of them before lines that land (their sequence numbers count the
    /// dropped ones).
    static let lines: [String] =
        (0..<12).map(plainLine) + CompiledChainTests.lines + (12..<20).map(plainLine)

    static func plainLine(_ i: Int) -> String {
        #"{"id":\#(100 + i),"name":"n\#(i)","price":\#(i * 90),"when":"2024-05-01T10:00:00Z","loc":{"city":"c\#(i % 3)","lat":31.\#(i)},"ok":\#(i % 2 == 0),"tags":["t\#(i)","u","v\#(i)"],"floor":"f\#(i % 4)"}"#
    }

    static let files: [String: [String]] = [
        "fanned": ["x.ndjson", "y.ndjson", "z.csv", "v.csv"], "sorted-too": ["x.ndjson", "y.ndjson"],
        "plain-and-labelled": ["x.ndjson", "y.ndjson"], "not-all-compiled": ["x.ndjson", "y.ndjson"],
        "array-left": ["x.json", "y.ndjson", "z.ndjson", "w.csv"], "none-compiled": ["x.ndjson", "y.json"],
    ]

    func run(_ runName: String, direct: Bool, jobs: Int = 1, batchSize: Int? = nil) throws -> PathRun {
        try PathRun.run(
            Self.pipeline, lines: Self.lines, runName: runName, direct: direct, jobs: jobs, batchSize: batchSize,
            files: Self.files[runName] ?? [])
    }

    /// Every output compiled (`fanned`, `sorted-too`, `plain-and-labelled`), some left to the
    /// general path (`not-all-compiled`: a chain with a sort before a step; `array-left`: a JSON
    /// array beside compiled NDJSON and rows after a chain), none compiled.
    @Test(arguments: ["fanned", "sorted-too", "plain-and-labelled", "not-all-compiled", "array-left", "none-compiled"])
    func sameOutputsDeadLettersAndCounts(_ runName: String) throws {
        let general = try run(runName, direct: false)
        // Batches of about 200 bytes: a worker's batch holds lines taken and lines left.
        for other in [try run(runName, direct: true), try run(runName, direct: true, jobs: 2, batchSize: 200)] {
            #expect(other.out == general.out)
            #expect(other.dead == general.dead)
            #expect(other.summary == general.summary)
            #expect(other.steps == general.steps)
        }
        #expect(!general.dead.isEmpty)
        #expect(general.direct == 0)
        let compiled = try run(runName, direct: true)
        if runName == "none-compiled" {
            #expect(compiled.direct == 0)
        } else {
            #expect(compiled.direct > 0, "not vacuous: the fan-out wrote records")
        }
    }

    /// A table output is left to the general path, the files beside it written from the bytes;
    /// the table's rows are the general path's either way.
    @Test(arguments: [1, 2])
    func aTableBesideFilesLoadsTheSameRows(jobs: Int) throws {
        let yaml =
            CompiledChainTests.pipeline + """

                  with-table:
                    outputs:
                      - { reform: [listing, affordable], format: ndjson, path: x.ndjson }
                      - { reform: [listing, affordable], sqlite: t.db, table: listings }
                      - { reform: [tagged], format: ndjson, path: y.ndjson }
                """
        let tables = [(path: "t.db", query: "SELECT * FROM listings ORDER BY rowid")]
        let run = { (direct: Bool, jobs: Int) in
            try PathRun.run(
                yaml, lines: Self.lines, runName: "with-table", direct: direct, jobs: jobs, batchSize: 200,
                files: ["x.ndjson", "y.ndjson"], tables: tables)
        }
        let general = try run(false, 1)
        let fanned = try run(true, jobs)
        #expect(fanned.out == general.out)
        #expect(fanned.dead == general.dead)
        #expect(fanned.summary == general.summary)
        #expect(fanned.steps == general.steps)
        #expect(general.out.contains("\n'1'|'plain"), "not vacuous: the table has rows")
        #expect(fanned.direct > 0)
    }

    /// A table a plain mapping fills, beside a compiled file, is bound straight from each line's
    /// bytes after the file took it; a line it refuses (here: no `floor`, which the file's chain
    /// defaults) is taken back from the file and lands for every output.
    @Test func aPlainMappingsTableBesideFilesLoadsTheSameRows() throws {
        let yaml =
            CompiledChainTests.pipeline + """

                  plain-table:
                    outputs:
                      - { reform: [listing, affordable], format: ndjson, path: x.ndjson }
                      - { reform: [floors], sqlite: t.db, table: floors }
                """
        let withoutFloor = (0..<6).map { i in
            #"{"id":\#(200 + i),"name":"m\#(i)","price":\#(i * 70),"when":"2024-05-02T10:00:00Z","loc":{"city":"d","lat":31.5},"ok":true,"tags":[]}"#
        }
        let lines = Array(Self.lines.prefix(6)) + withoutFloor + Self.lines.dropFirst(6)
        let tables = [(path: "t.db", query: "SELECT * FROM floors ORDER BY rowid")]
        let run = { (direct: Bool) in
            try PathRun.run(yaml, lines: lines, runName: "plain-table", direct: direct, files: ["x.ndjson"], tables: tables)
        }
        let general = try run(false)
        let fanned = try run(true)
        #expect(fanned.out == general.out)
        #expect(fanned.dead == general.dead)
        #expect(fanned.summary == general.summary)
        #expect(fanned.steps == general.steps)
        #expect(general.out.contains("\n'100'|'f0'\n"), "not vacuous: the table has rows")
        #expect(general.out.contains(#""id":200,"label":"m0 · d ()""#), "not vacuous: the file has a line the table refused")
        #expect(general.dead.contains("(output t.db#floors)"), "not vacuous: the table's mapping rejects lines")
        #expect(fanned.direct > 0)
    }

    /// A line one output takes and another sends down the general path (a rejected record) is
    /// written once to each output, in input order, and its dead letters name each output.
    @Test(arguments: [1, 2])
    func aLineOneOutputLeavesIsWrittenOnceToEach(jobs: Int) throws {
        let yaml = """
            reform: 1
            managers: { a: {} }
            reformers:
              ids: { keys: { id: id, n: n }, map: { id: id, n: { path: n, convert: int } } }
              names: { keys: { id: id, name: name }, map: { id: id, name: name } }
            runs:
              default:
                outputs:
                  - { reform: [names], format: ndjson, path: x.ndjson }
                  - { reform: [ids], format: ndjson, path: y.ndjson }
            """
        let lines = [#"{"id":1,"n":"7","name":"x"}"#, #"{"id":2,"n":"seven","name":"y"}"#, #"{"id":3,"n":3,"name":"z"}"#]
        let files = ["x.ndjson", "y.ndjson"]
        let general = try PathRun.run(yaml, lines: lines, direct: false, files: files)
        let fanned = try PathRun.run(yaml, lines: lines, direct: true, jobs: jobs, batchSize: 30, files: files)
        #expect(
            fanned.out
                == """
                == x.ndjson ==
                {"id":1,"name":"x"}
                {"id":2,"name":"y"}
                {"id":3,"name":"z"}
                == y.ndjson ==
                {"id":1,"n":7}
                {"id":3,"n":3}

                """)
        #expect(fanned.out == general.out)
        #expect(fanned.dead == general.dead)
        #expect(fanned.dead.contains("reformer 'ids' (output y.ndjson)"))
        #expect(fanned.steps == general.steps)
        #expect(fanned.direct == 4, "lines 1 and 3 to both outputs; line 2 took the general path")
    }
}
