import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// `sort` steps and sorted row shapes keep a bounded amount of records in memory and spill sorted
/// runs to a temporary file past it; what they write is the same for any budget (audit D16).
@Suite("Sorting within a memory budget", .timeLimit(.minutes(10)))
struct SortMemoryTests {
    let loader = PipelineLoader(environment: [:], allowOutsidePaths: true)  // outputs go to temporary folders

    static let yaml = """
        reform: 1
        managers: { a: {} }
        reformers:
          by-price: { steps: [ { sort: { by: price } } ] }
          top: { steps: [ { sort: { by: price, order: desc } }, { pick: [id, price] }, { limit: 400 } ] }
          twice: { steps: [ { sort: { by: name } }, { filter: "group != 3" }, { sort: { by: group, order: desc } }, { drop: [pad] } ] }
        rows:
          row: { columns: [id, name, price, group], sort: { by: price, order: desc } }
        runs:
          default:
            outputs:
              - { reform: [by-price], format: ndjson }
              - { reform: [top], format: ndjson, path: OUT/top.ndjson }
              - { reform: [twice], format: csv, path: OUT/twice.csv }
              - { rows: row, format: table, path: OUT/rows.txt }
              - { rows: row, format: csv, path: OUT/rows.csv }
        """

    /// Records whose `price` mixes ints, doubles, strings, `null`, missing and ties, with a pad
    /// that makes some records much larger than others.
    static func records(_ count: Int) -> String {
        (1...count).map { i in
            let price: String
            switch i % 29 {
            case 3: price = #","price":\#(Double(i % 50) + 0.5)"#
            case 7: price = #","price":"p\#(i % 40)""#
            case 11: price = #","price":null"#
            case 13: price = ""
            case 17: price = #","price":true"#
            default: price = #","price":\#(i * 7919 % 101)"#
            }
            let name = i % 5 == 0 ? "名字 \(i % 37)" : "name \(i % 41)"
            return #"{"id":\#(i),"name":"\#(name)","group":\#(i % 6)\#(price),"pad":"\#(String(repeating: "x", count: i % 97))"}"#
        }.joined(separator: "\n") + "\n"
    }

    /// Runs the pipeline over `input` with `sortMemory`, returning every file it wrote.
    func run(_ input: String, sortMemory: Int?, stats: Bool = false) throws -> (files: [String: String], summary: RunSummary) {
        let folder = try TemporaryFolder()
        let inputPath = try folder.write("in.ndjson", input)
        let pipeline = try loader.load(
            path: try folder.write("p.yaml", SortMemoryTests.yaml.replacingOccurrences(of: "OUT/", with: folder.path + "/")))
        var options = RunOptions()
        options.inputs = [("a", inputPath)]
        options.outputPath = folder.path + "/out.ndjson"
        options.deadLetterPath = folder.path + "/dead.ndjson"
        options.collectsStats = stats
        if let sortMemory { options.sortMemory = sortMemory }
        let summary = try Runner(pipeline: pipeline, options: options).run()
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != "in.ndjson" && name != "p.yaml" {
            files[name] = try folder.read(name).replacingOccurrences(of: folder.path, with: "<out>")
        }
        return (files, summary)
    }

    @Test(arguments: [1, 700, 20_000])
    func sortsWriteTheSameWhateverTheirMemoryBudget(sortMemory: Int) throws {
        let input = SortMemoryTests.records(2_500)
        let inMemory = try run(input, sortMemory: nil, stats: true)
        let spilled = try run(input, sortMemory: sortMemory, stats: true)
        #expect(inMemory.files.keys.sorted() == ["dead.ndjson", "out.ndjson", "rows.csv", "rows.txt", "top.ndjson", "twice.csv"])
        for (name, text) in inMemory.files {
            #expect(spilled.files[name] == text, "\(name) differs with a budget of \(sortMemory) bytes")
        }
        // The records `pick` rejects after the sort are dead-lettered one by one.
        #expect(inMemory.files["dead.ndjson"]?.split(separator: "\n").count == (1...2_500).filter { $0 % 29 == 13 }.count)
        #expect(spilled.summary.stats?.steps.map(\.recordsOut) == inMemory.summary.stats?.steps.map(\.recordsOut))
        // The sorted output is sorted, ties in input order.
        let prices = try #require(inMemory.files["out.ndjson"]).split(separator: "\n").prefix(3)
        #expect(prices.allSatisfy { $0.contains(#""price":0,"#) })
    }

    @Test func spillFilesLeaveNothingBehind() throws {
        let before = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("reform-sort-") }
        _ = try run(SortMemoryTests.records(300), sortMemory: 1)
        let after = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("reform-sort-") }
        #expect(after.count <= before.count)
    }

    @Test func aLargeSortStaysWithinItsBudget() async throws {
        let folder = try TemporaryFolder()
        let records = 200_000
        // Written in chunks: one 19 MB string would raise this process's peak memory, which the
        // reader's bounded-memory test running beside it measures.
        let inputPath = try folder.write("in.ndjson", "")
        let handle = try #require(FileHandle(forWritingAtPath: inputPath))
        for start in stride(from: 0, to: records, by: 10_000) {
            let chunk = (start..<min(start + 10_000, records)).map { i in
                #"{"id":\#(i),"key":\#(i * 7919 % 100_003),"title":"Bright two-room flat near the metro \#(i)","tags":["a","b"]}"# + "\n"
            }.joined()
            handle.write(Data(chunk.utf8))
        }
        try handle.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: inputPath)[.size] as? Int)
        let yaml = """
            reform: 1
            managers: { a: {} }
            reformers:
              by-key: { steps: [ { sort: { by: key } } ] }
            runs:
              default: { reform: [by-key], output: { format: ndjson } }
            """
        let pipeline = try folder.write("p.yaml", yaml)
        let small = try folder.write("small.ndjson", #"{"id":1,"key":2,"title":"t","tags":[]}"# + "\n")
        // In a process of its own, so that no other test's memory counts; it reports its own peak
        // (a spawned child's rusage would include this process's, shared until its exec).
        func sorted(_ input: String) async throws -> (peak: Int, stats: Value) {
            let result = try await ReformBinary.run(
                [
                    "run", pipeline, "--input", "a=" + input, "--output", folder.path + "/out.ndjson", "--sort-memory", "\(2 << 20)",
                    "--quiet", "--stats", "json",
                ],
                environment: [:])
            #expect(result.status == 0, "\(result.stderr)")
            let stats = try JSON.parse(Array(result.stderr.utf8))
            guard case .int(let peak)? = stats[path: try ValuePath(parsing: "peak_rss_bytes")] else {
                Issue.record("no peak_rss_bytes in --stats json: \(result.stderr)")
                return (0, stats)
            }
            return (peak, stats)
        }
        let alone = try await sorted(small).peak
        let (peak, stats) = try await sorted(inputPath)
        print("sorted \(records) records, \(size) bytes, in a 2 MiB budget; peak RSS \(peak) bytes (\(alone) for one record)")
        #expect(stats[path: try ValuePath(parsing: "out")] == .int(records))
        #expect(try folder.read("out.ndjson").split(separator: "\n").count == records)
        // Held in memory the records take about 7 times their input size (115 MB more here); in
        // the budget, the run takes a few MiB more than the same binary sorting one record (the
        // budget, read and write buffers, the merge's runs) whatever the input's size.
        #expect(peak - alone < size / 2, "peak \(peak) bytes, \(alone) for one record, input \(size) bytes")
    }
}
