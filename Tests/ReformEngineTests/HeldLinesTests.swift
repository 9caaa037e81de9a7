import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// A last reformer of only `sort`, `dedupe` and `limit` steps runs on an NDJSON output's written
/// lines (`HeldLines`) instead of on records: it must write exactly what the general path writes
/// (which holds records and encodes them at the end), count the same in `--stats` and the summary,
/// and sort within its memory budget, whatever the keys are: numbers of both kinds, text that is
/// equal only under Unicode equivalence, nulls, missing and nested keys, arrays and objects,
/// records that are not objects, invalid lines.
@Suite("Sorts and dedupes on written lines write what the general path writes", .timeLimit(.minutes(10)))
struct HeldLinesTests {
    static let lines = [
        #"{"id":1,"k":3,"m":{"n":"b"},"t":"x"}"#,
        #"{"id":2,"k":1.5,"m":{"n":"a"},"t":"x"}"#,
        #"{"id":3,"k":"text","m":{"n":"a"},"t":"é"}"#,
        "{\"id\":4,\"k\":null,\"m\":{\"n\":\"c\"},\"t\":\"e\u{301}\"}",
        #"{"id":5,"m":{"n":"b"},"t":"y"}"#,
        #"{"id":6,"k":1,"m":"not an object","t":"y"}"#,
        #"{"id":7,"k":1.0,"m":{"n":"d"},"t":"z"}"#,
        #"{"id":8,"k":-0,"m":{},"t":"z"}"#,
        #"{"id":9,"k":1e2,"m":{"n":"静安"},"t":"上海"}"#,
        #"{"id":10,"k":[1,2],"m":{"n":"a"},"t":"上海"}"#,
        #"{"id":11,"k":{"a":1},"m":{"n":"b"},"t":"\u4e0a\u6d77"}"#,
        #"{"id":12,"k":true,"m":{"n":["a"]},"t":"x"}"#,
        #"{"id":13,"k":3,"m":{"n":"b"},"t":"x","k":2}"#,
        #"{"id":14,"k":"Text","m":{"n":"a"},"t":null}"#,
        #"{"id":15,"k":9007199254740993,"m":{"n":"e"},"t":"q"}"#,
        #"{"id":16,"k":9007199254740992.0,"m":{"n":"e"},"t":"q"}"#,
        #"{"id":17, "bad" }"#,
        #"[1,2]"#,
        #"{"id":18,"k":0.1,"m":{"n":"a","o":{"p":1}},"t":"\ud83c\udfe0"}"#,
        #"{"id":19,"k":"text","m":{"n":"a"},"t":"x"}"#,
        // Values that hold what ends a value elsewhere: quotes, commas, braces, a backslash.
        #"{"id":20,"k":"a","k":1 {[\","m":{"n":"}]","o":[{"t":"{"}]},"t":"x,"t":y"}"#,
        #"{"id":21,"m":{"k":0,"n":"]"},"t":"\","k":-1}"#,
        // A later line of a key that ties, on the sort key, with a line of another key that came
        // before it: the tie goes to the line that came first (23), not the key seen first (v).
        #"{"id":22,"k":5,"m":{"n":"f"},"t":"v"}"#,
        #"{"id":23,"k":4,"m":{"n":"g"},"t":"w"}"#,
        #"{"id":24,"k":4,"m":{"n":"f"},"t":"v"}"#,
        // Keys equal only by Unicode equivalence (the Kelvin sign and K), one ASCII: one key.
        #"{"id":25,"k":50,"m":{"n":"K"},"u":"K","t":"K"}"#,
        #"{"id":26,"k":60,"m":{"n":"\u212a"},"u":"\u212a","t":"\u212a"}"#,
    ]

    static let pipeline = """
        reform: 1
        managers: { a: {} }
        reformers:
          by-k: { steps: [ { sort: { by: k } } ] }
          by-k-desc: { steps: [ { sort: { by: k, order: desc } } ] }
          by-nested: { steps: [ { sort: { by: m.n } }, { dedupe: [t] } ] }
          first-per-t: { steps: [ { dedupe: [t] }, { sort: { by: k, order: desc } }, { limit: 5 } ] }
          distinct-pairs: { steps: [ { sort: { by: id, order: desc } }, { dedupe: [m.n, t] } ] }
          distinct-records: { steps: [ { dedupe: [] }, { sort: { by: t } } ] }
          lowest-k-per-t: { steps: [ { sort: { by: k } }, { dedupe: [t] }, { limit: 6 } ] }
          highest-k-per-n: { steps: [ { sort: { by: k, order: desc } }, { dedupe: [m.n] } ] }
          last-per-u: { steps: [ { sort: { by: id, order: desc } }, { dedupe: [u] } ] }
          distinct-k: { steps: [ { dedupe: [k] } ] }
          first-three: { steps: [ { limit: 3 } ] }
          shaped: { steps: [ { pick: [id, k, m, t] }, { filter: "id != 19" } ] }
          keyed:
            keys: { id: id, k: k, t: t }
            map: { id: id, k: { path: k, optional: true }, t: { path: t, optional: true } }
        runs:
          by-k: { reform: [by-k], output: { format: ndjson } }
          by-k-desc: { reform: [by-k-desc], output: { format: ndjson } }
          by-nested: { reform: [by-nested], output: { format: ndjson } }
          first-per-t: { reform: [first-per-t], output: { format: ndjson } }
          distinct-pairs: { reform: [distinct-pairs], output: { format: ndjson } }
          distinct-records: { reform: [distinct-records], output: { format: ndjson } }
          lowest-k-per-t: { reform: [lowest-k-per-t], output: { format: ndjson } }
          highest-k-per-n: { reform: [highest-k-per-n], output: { format: ndjson } }
          last-per-u: { reform: [last-per-u], output: { format: ndjson } }
          distinct-k: { reform: [distinct-k], output: { format: ndjson } }
          first-three: { reform: [first-three], output: { format: ndjson } }
          after-steps: { reform: [shaped, by-k], output: { format: ndjson } }
          after-mapping: { reform: [keyed, first-per-t], output: { format: ndjson } }
        """

    static let runs = [
        "by-k", "by-k-desc", "by-nested", "first-per-t", "distinct-pairs", "distinct-records", "distinct-k", "first-three",
        "after-steps", "after-mapping", "lowest-k-per-t", "highest-k-per-n", "last-per-u",
    ]

    /// One run of `runName` over the lines (repeated `copies` times), with the fast paths on or off.
    func run(_ runName: String, direct: Bool, jobs: Int = 1, sortMemory: Int? = nil, copies: Int = 1) throws -> PathRun {
        try PathRun.run(
            Self.pipeline, lines: Array(Array(repeating: Self.lines, count: copies).joined()), runName: runName, direct: direct,
            jobs: jobs, batchSize: jobs > 1 ? 256 : nil, sortMemory: sortMemory)
    }

    @Test(arguments: runs)
    func sameOutputCountsAndDeadLetters(_ runName: String) throws {
        let general = try run(runName, direct: false)
        let held = try run(runName, direct: true)
        let parallel = try run(runName, direct: true, jobs: 2)
        for other in [held, parallel] {
            #expect(other.out == general.out)
            #expect(other.dead == general.dead)
            #expect(other.summary == general.summary)
            #expect(other.steps == general.steps)
        }
        #expect(!general.out.isEmpty)
        #expect(!general.dead.isEmpty, "the invalid line is dead-lettered either way")
        // Not vacuous: the last reformer ran on the lines (and only with the fast paths on).
        #expect(general.onLines.isEmpty)
        #expect(held.onLines.count == 1 && parallel.onLines == held.onLines)
    }

    /// Spilled to a temporary file (a budget of a few lines) or not, written by one thread or two,
    /// the order is the same.
    @Test(arguments: ["by-k", "by-nested", "distinct-pairs", "after-mapping", "lowest-k-per-t", "highest-k-per-n", "last-per-u"])
    func sameOutputWhenTheSortSpills(_ runName: String) throws {
        let general = try run(runName, direct: false, copies: 40)
        for sortMemory in [1, 2048] {
            let held = try run(runName, direct: true, sortMemory: sortMemory, copies: 40)
            #expect(held.out == general.out)
            #expect(held.summary == general.summary)
            #expect(held.steps == general.steps)
            #expect(held.onLines.count == 1)
        }
        let parallel = try run(runName, direct: true, jobs: 2, sortMemory: 2048, copies: 40)
        #expect(parallel.out == general.out)
        // Held in memory, with no step after the sort (or a dedupe its first-per-key table made
        // moot): two threads copy out chunks of the sorted lines, written in order.
        let inMemory = try run(runName, direct: true, jobs: 2, copies: 40)
        #expect(inMemory.out == general.out)
        #expect(inMemory.summary == general.summary)
        #expect(inMemory.steps == general.steps)
    }

    /// Lines longer than a block of the memory the sort keeps lines in (4 KiB at the smallest
    /// budgets, each such line then a block of its own), among short ones, held in memory or
    /// spilled, by the landing thread or from workers' batches: the same lines, in the same order.
    @Test func linesLongerThanTheSortsBlocksKeepTheirBytes() throws {
        let lines = (0..<60).map { i in
            let text = String(repeating: "长文本 long text \(i) ", count: i % 3 == 0 ? 700 : 1)
            return #"{"id":\#(i),"k":\#((i * 37) % 11),"t":"\#(text)"}"#
        }
        let pipeline = """
            reform: 1
            managers: { a: {} }
            reformers:
              by-k: { steps: [ { sort: { by: k } } ] }
              by-k-per-id: { steps: [ { sort: { by: k, order: desc } }, { dedupe: [id] } ] }
            runs:
              by-k: { reform: [by-k], output: { format: ndjson } }
              by-k-per-id: { reform: [by-k-per-id], output: { format: ndjson } }
            """
        for runName in ["by-k", "by-k-per-id"] {
            let general = try PathRun.run(pipeline, lines: lines, runName: runName, direct: false)
            #expect(general.out.utf8.count > 20 * 10_000)
            for (jobs, sortMemory) in [(1, 1), (1, 50_000), (1, nil), (2, 50_000), (2, nil)] as [(Int, Int?)] {
                let held = try PathRun.run(
                    pipeline, lines: lines, runName: runName, direct: true, jobs: jobs, batchSize: jobs > 1 ? 4096 : nil,
                    sortMemory: sortMemory)
                #expect(held.out == general.out, "\(runName), --jobs \(jobs), sort memory \(sortMemory ?? 0)")
                #expect(held.onLines.count == 1)
            }
        }
    }

    /// Lines longer than the MiB a spilled run is written through, among short ones, spilled a
    /// line a run or a few lines a run: written whole, in order.
    @Test func linesLongerThanASpillBufferSpillWhole() throws {
        let lines = (0..<24).map { i in
            let text = String(repeating: "x", count: i % 8 == 0 ? (1 << 20) + 1_000 * i : 10)
            return #"{"id":\#(i),"k":\#((i * 37) % 11),"t":"\#(text)"}"#
        }
        let general = try PathRun.run(Self.pipeline, lines: lines, runName: "by-k", direct: false)
        #expect(general.out.utf8.count > 3 << 20)
        for (jobs, sortMemory) in [(1, 1), (1, 1_500_000), (2, 1_500_000)] {
            let held = try PathRun.run(
                Self.pipeline, lines: lines, runName: "by-k", direct: true, jobs: jobs, batchSize: jobs > 1 ? 4096 : nil,
                sortMemory: sortMemory)
            #expect(held.out == general.out, "--jobs \(jobs), sort memory \(sortMemory)")
        }
    }

    /// Keys of one kind (integers, numbers of both kinds, text), with nulls and missing keys,
    /// from many workers' batches, and numbers in the first batches then text: the sort reads
    /// numbers from the batches' own arrays and joins them when text comes, and writes what the
    /// general path writes, ascending and descending. Spilled too, by one thread or from
    /// workers' batches: the merge compares the runs' keys as numbers' bits while every key of
    /// the sort is an integer (integers past 2^53 included) or a number a double holds exactly
    /// (`-0` and `0.0` tie), and as values once one is not (text, or an integer past 2^53 among
    /// doubles).
    @Test(arguments: ["int", "number", "text", "numbers then text", "big int", "big int and number"])
    func keysOfOneKindFromManyBatchesSortAsTheGeneralPath(_ kind: String) throws {
        let lines = (0..<400).map { i -> String in
            let key: String
            switch (kind, i % 7) {
            case (_, 3): key = #""k":null,"#
            case (_, 5): key = ""
            case ("numbers then text", _) where i >= 300: key = #""k":"t\#((i * 17) % 29)","#
            case ("int", _), ("numbers then text", _): key = #""k":\#((i * 7_919) % 101 - 50),"#
            case ("number", 6): key = i % 2 == 0 ? #""k":-0,"# : #""k":0.0,"#
            case ("number", _): key = i % 2 == 0 ? #""k":\#((i * 31) % 17),"# : #""k":\#(Double((i * 13) % 23) / 4 - 2),"#
            case ("big int", _): key = #""k":\#(9_007_199_254_741_000 + (i * 7_919) % 211 - (i % 2 == 0 ? 0 : 9_007_199_254_741_100)),"#
            case ("big int and number", 1): key = #""k":9007199254740993,"#
            case ("big int and number", 2): key = #""k":9007199254740992.0,"#
            case ("big int and number", _): key = #""k":\#(Double((i * 13) % 23) / 4),"#
            default: key = #""k":"t\#((i * 17) % 29)","#
            }
            return #"{"id":\#(i),\#(key)"pad":"\#(String(repeating: "x", count: i % 40))"}"#
        }
        for runName in ["by-k", "by-k-desc"] {
            let general = try PathRun.run(Self.pipeline, lines: lines, runName: runName, direct: false)
            let parallel = try PathRun.run(Self.pipeline, lines: lines, runName: runName, direct: true, jobs: 2, batchSize: 512)
            #expect(parallel.out == general.out, "\(kind), \(runName)")
            #expect(parallel.summary == general.summary)
            #expect(parallel.onLines.count == 1)
            for (jobs, sortMemory) in [(1, 1), (1, 3_000), (2, 3_000)] {
                let spilled = try PathRun.run(
                    Self.pipeline, lines: lines, runName: runName, direct: true, jobs: jobs, batchSize: jobs > 1 ? 512 : nil,
                    sortMemory: sortMemory)
                #expect(spilled.out == general.out, "\(kind), \(runName), --jobs \(jobs), sort memory \(sortMemory)")
            }
        }
    }

    /// Not vacuous: the keys the general path compares as equal (Unicode equivalence, numbers of
    /// either kind) are equal on the lines too, and the sort is the documented one.
    @Test func theKeysCompareAsValues() throws {
        let distinct = try run("distinct-k", direct: true).out
        #expect(!distinct.contains(#"{"id":7,"#), "1.0 equals 1 (id 6)")
        #expect(distinct.contains(#"{"id":13,"#), "a repeated member's last value counts (2, not 3)")
        let sorted = try run("by-k", direct: true).out.split(separator: "\n")
        #expect(sorted.first?.hasPrefix(#"{"id":8,"#) == true, "-0 sorts first among the numbers")
        #expect(sorted.suffix(3).map { $0.prefix(7) } == [#"{"id":4"#, #"{"id":5"#, "[1,2]"], "null and missing last, in arrival order")
        // 9007199254740992.0 is written as an integer: it sorts as the int it reads back as, before
        // 9007199254740993 (as doubles the two would tie, and keep their arrival order).
        let big = sorted.filter { $0.hasPrefix(#"{"id":15,"#) || $0.hasPrefix(#"{"id":16,"#) }
        #expect(big.map { $0.prefix(8) } == [#"{"id":16"#, #"{"id":15"#])
        let pairs = try run("by-nested", direct: true).out
        #expect(!pairs.contains(#""id":4,"#), "e + combining acute repeats é")
        // A sort then a dedupe keeps, per key, the line that sorts first; on a tie the one that
        // came first (ids 6 and 7 tie at k 1: 6 is kept for "y", 7 is not for "z" since 8's -0 is
        // lower; "x" keeps 2's 1.5 over 1's 3, 13's 2 and 12's true; 23 and 24 tie at 4).
        let lowest = try run("lowest-k-per-t", direct: true).out.split(separator: "\n").map { $0.prefix { $0 != "," } }
        #expect(lowest == [#"{"id":8"#, #"{"id":18"#, #"{"id":6"#, #"{"id":2"#, #"{"id":23"#, #"{"id":24"#])
        let lastPerU = try run("last-per-u", direct: true).out.split(separator: "\n").map { $0.prefix { $0 != "," } }
        #expect(lastPerU == [#"{"id":26"#, #"{"id":24"#], "the Kelvin sign is K; every other line has no u (null)")
    }

    /// A `--jobs` run's sort that spilled, with MiBs of lines: merged on one thread and written by
    /// another a MiB at a time (``BlockAppender``), every line in order as one thread writes them;
    /// a write that fails (a full device) fails the run with the file's error, and returns.
    @Test func aSpilledSortWrittenByASecondThreadWritesWhatOneThreadWrites() throws {
        let yaml = """
            reform: 1
            managers: { a: {} }
            reformers:
              by-k: { steps: [ { sort: { by: k } } ] }
            runs:
              default: { reform: [by-k], output: { format: ndjson } }
            """
        let lines = (0..<40_000).map { i in #"{"k":\#(i * 7919 % 1009),"i":\#(i),"p":"\#(String(repeating: "p", count: 60 + i % 50))"}"# }
        let one = try PathRun.run(yaml, lines: lines, direct: true, sortMemory: 200_000)
        let two = try PathRun.run(yaml, lines: lines, direct: true, jobs: 2, batchSize: 1 << 16, sortMemory: 200_000)
        #expect(one.out.utf8.count > 4 << 20, "several blocks of a MiB")
        #expect(two.out == one.out)
        #expect(two.summary == one.summary)

        let folder = try TemporaryFolder()
        var options = RunOptions()
        options.inputs = [("a", try folder.write("a.ndjson", lines.map { $0 + "\n" }.joined()))]
        options.outputPath = "/dev/full"
        options.jobs = 2
        options.sortMemory = 200_000
        let pipeline = try PipelineLoader(environment: [:]).load(path: try folder.write("p.yaml", yaml))
        let error = #expect(throws: RunError.self) { try Runner(pipeline: pipeline, options: options).run() }
        #expect(error?.description.contains("write failed: No space left on device") == true, "\(String(describing: error))")
    }
}
