import Foundation
@_spi(Fuzzing) import ReformEngine
import ReformSDK
import Testing

/// Batch runs at scale: parallel workers, folders and gzip inputs, `--limit` and `--sample`, stats.
@Suite("Batch runs", .timeLimit(.minutes(10)))
struct BatchRunTests {
    let loader = PipelineLoader(environment: [:], allowOutsidePaths: true)  // outputs go to temporary folders

    /// Runs `yaml` over `inputs` (manager → file name in the folder) and returns every file the run wrote.
    func run(
        _ yaml: String, folder: TemporaryFolder, inputs: [(String, String)], configure: (inout RunOptions) -> Void = { _ in }
    ) throws -> (summary: RunSummary, files: [String: String]) {
        let out = try TemporaryFolder()
        let pipeline = try loader.load(path: try folder.write("p.yaml", yaml.replacingOccurrences(of: "OUT/", with: out.path + "/")))
        var options = RunOptions()
        options.inputs = inputs.map { ($0.0, folder.path + "/" + $0.1) }
        options.outputPath = out.path + "/out.txt"
        options.deadLetterPath = out.path + "/dead.ndjson"
        configure(&options)
        let summary = try Runner(pipeline: pipeline, options: options).run()
        var files: [String: String] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: out.path)
        where !FileManager.default.isDirectory(out.path + "/" + name) {
            files[name] = try out.read(name).replacingOccurrences(of: folder.path, with: "<in>").replacingOccurrences(
                of: out.path, with: "<out>")
        }
        return (summary, files)
    }

    static let yaml = """
        reform: 1
        managers: { a: {}, b: {} }
        reformers:
          list:
            keys: { id: kID, name: kName, day: kDay }
            from:
              a: { id: id, name: name, day: "day?" }
              b: { id: b_id, name: { template: "{first} {last}" }, day: { path: when, convert: date } }
          cheap: { steps: [ { filter: "kID < 900" }, { explode: tags } ] }
        rows:
          row: { columns: [id, name, day], format: { day: { date: "M月D日" } }, from: { b: { style: highlight } } }
        runs:
          default:
            outputs:
              - { reform: [list], format: ndjson }
              - { reform: [list], format: csv, path: OUT/list.csv }
              - { reform: [list], rows: row, format: markdown, path: OUT/rows.md }
          direct:
            managers: [a]
            reform: [list]
            output: { format: ndjson }
        """

    /// Lines with everything a batch edge could split badly: blanks, CRLF, invalid JSON, rejects, long lines.
    static func lines(_ count: Int, manager: String) -> String {
        var text = ""
        for i in 1...count {
            switch (manager, i % 11) {
            case (_, 3): text += "\n"
            case (_, 5): text += "not json \(i)\n"
            case ("a", 7): text += #"{"id":\#(i),"day":"2026-03-0\#(i % 9 + 1)"}"# + "\r\n"
            case ("a", _):
                text +=
                    #"{"id":\#(i),"name":"名字 \#(i) \"q\"","day":"2026-02-1\#(i % 10)","pad":"\#(String(repeating: "x", count: i % 37))"}"#
                    + "\n"
            case (_, 9): text += #"{"b_id":\#(i),"first":"F","last":"L","when":"someday"}"# + "\n"
            default: text += #"{"b_id":\#(i),"first":"F\#(i)","last":"L","when":\#(1_767_225_600 + i * 86_400)}"# + "\n"
            }
        }
        return text
    }

    @Test(arguments: [2, 3, 7])
    func parallelWorkersWriteExactlyWhatOneWorkerWrites(jobs: Int) throws {
        let folder = try TemporaryFolder()
        try folder.write("a.ndjson", BatchRunTests.lines(700, manager: "a"))
        try folder.write(
            "b.ndjson", BatchRunTests.lines(500, manager: "b") + #"{"b_id":1,"first":"no newline at the end","last":"L","when":0}"#)
        for run in ["default", "direct"] {
            let inputs = run == "direct" ? [("a", "a.ndjson")] : [("a", "a.ndjson"), ("b", "b.ndjson")]
            let single = try self.run(BatchRunTests.yaml, folder: folder, inputs: inputs) { $0.runName = run }
            let parallel = try self.run(BatchRunTests.yaml, folder: folder, inputs: inputs) { options in
                options.runName = run
                options.jobs = jobs
                options.batchSize = 97  // many batches, cut between and across lines
            }
            #expect(single.files == parallel.files, "run \(run)")
            #expect(single.summary.recordsIn == parallel.summary.recordsIn)
            #expect(single.summary.written.map(\.count) == parallel.summary.written.map(\.count))
            #expect(single.summary.rejected == parallel.summary.rejected)
            #expect(single.summary.writtenDirectly == parallel.summary.writtenDirectly)
            #expect(single.summary.rejected > 0)
        }
    }

    @Test func anOverlongLineIsRejectedAndSkippedAlikeOnEveryPath() throws {
        let folder = try TemporaryFolder()
        let long = #"{"id":2,"name":""# + String(repeating: "x", count: 17 << 20) + #""}"#
        try folder.write("a.ndjson", #"{"id":1,"name":"a"}"# + "\n" + long + "\n" + #"{"id":3,"name":"c"}"# + "\n")
        var results: [[String: String]] = []
        for jobs in [1, 2] {
            let result = try run(BatchRunTests.yaml, folder: folder, inputs: [("a", "a.ndjson")]) { options in
                options.runName = "direct"
                options.jobs = jobs
            }
            #expect(result.summary.recordsIn == 3)
            results.append(result.files)
        }
        let same = results[0] == results[1]  // not printed: the files hold a 17 MiB line
        #expect(same)
        #expect(results[0]["out.txt"] == #"{"kID":1,"kName":"a","kDay":null}"# + "\n" + #"{"kID":3,"kName":"c","kDay":null}"# + "\n")
        #expect(results[0]["dead.ndjson"]?.contains(#""input":"<in>/a.ndjson:2","stage":"input","code":"too-large""#) == true)
    }

    @Test func foldersAndGzipInputsReadLikeTheirPlainFiles() throws {
        let folder = try TemporaryFolder()
        let a = BatchRunTests.lines(300, manager: "a")
        let half = a.index(a.startIndex, offsetBy: a.count / 2)
        let cut = a[..<half].lastIndex(of: "\n").map { a.index(after: $0) } ?? half
        try folder.write("all.ndjson", a)
        try folder.write("parts/1.ndjson", String(a[..<cut]))
        try folder.write("parts/2.ndjson", String(a[cut...]))
        try folder.write("parts/.hidden.ndjson", "{\"id\":-1}\n")
        try folder.write("parts/notes.txt", "not an input\n")
        try folder.write("gz/all.ndjson", a)
        try gzip(folder.path + "/gz/all.ndjson")
        let plain = try run(BatchRunTests.yaml, folder: folder, inputs: [("a", "all.ndjson")]) { $0.runName = "direct" }
        let parts = try run(BatchRunTests.yaml, folder: folder, inputs: [("a", "parts")]) { $0.runName = "direct" }
        let compressed = try run(BatchRunTests.yaml, folder: folder, inputs: [("a", "gz/all.ndjson.gz")]) { options in
            options.runName = "direct"
            options.collectsStats = true
        }
        let parallel = try run(BatchRunTests.yaml, folder: folder, inputs: [("a", "gz/all.ndjson.gz")]) { options in
            options.runName = "direct"
            options.jobs = 2
            options.batchSize = 1000
        }
        #expect(plain.files["out.txt"] == parts.files["out.txt"])
        #expect(plain.files["out.txt"] == compressed.files["out.txt"])
        #expect(plain.files["out.txt"] == parallel.files["out.txt"])
        #expect(plain.summary.recordsIn == compressed.summary.recordsIn)
        let bytes = try #require(compressed.summary.stats?.managers.first?.bytes)
        #expect(bytes > 0 && bytes < a.utf8.count)  // compressed bytes are counted
        #expect(compressed.files["dead.ndjson"]?.contains(#""input":"<in>/gz/all.ndjson.gz:5""#) == true)
    }

    @Test func anEmptyFolderIsAClearError() throws {
        let folder = try TemporaryFolder()
        try folder.write("empty/readme.txt", "nothing\n")
        #expect {
            try run(BatchRunTests.yaml, folder: folder, inputs: [("a", "empty")]) { $0.runName = "direct" }
        } throws: { error in
            "\(error)".contains("holds no input files")
        }
    }

    @Test func limitTakesTheFirstRecordsOfEachManager() throws {
        let folder = try TemporaryFolder()
        try folder.write("a.ndjson", BatchRunTests.lines(100, manager: "a"))
        let limited = try run(BatchRunTests.yaml, folder: folder, inputs: [("a", "a.ndjson")]) { options in
            options.runName = "direct"
            options.limit = 4
        }
        #expect(limited.summary.recordsIn == 4)
        #expect(
            limited.files["out.txt"] == #"""
                {"kID":1,"kName":"名字 1 \"q\"","kDay":"2026-02-11"}
                {"kID":2,"kName":"名字 2 \"q\"","kDay":"2026-02-12"}
                {"kID":4,"kName":"名字 4 \"q\"","kDay":"2026-02-14"}

                """#)
    }

    @Test func sampleIsEvenRepeatableAndInInputOrder() throws {
        let folder = try TemporaryFolder()
        var text = ""
        for i in 1...10_000 { text += "{\"id\":\(i),\"name\":\"n\"}\n" }
        try folder.write("a.ndjson", text)
        func sample() throws -> [Int] {
            let result = try run(BatchRunTests.yaml, folder: folder, inputs: [("a", "a.ndjson")]) { options in
                options.runName = "direct"
                options.sample = 100
            }
            return (result.files["out.txt"] ?? "").split(separator: "\n").compactMap { line in
                line.split(separator: ":")[1].split(separator: ",").first.flatMap { Int($0) }
            }
        }
        let first = try sample()
        #expect(first.count == 100)
        #expect(first == first.sorted())
        #expect(try sample() == first)
        #expect(first.filter { $0 <= 5_000 }.count > 30 && first.filter { $0 > 5_000 }.count > 30)
    }

    @Test func statsCountEveryManagerAndStep() throws {
        let folder = try TemporaryFolder()
        try folder.write("a.ndjson", BatchRunTests.lines(110, manager: "a"))
        try folder.write("b.ndjson", BatchRunTests.lines(110, manager: "b"))
        for jobs in [1, 2] {
            let result = try run(BatchRunTests.yaml, folder: folder, inputs: [("a", "a.ndjson"), ("b", "b.ndjson")]) { options in
                options.collectsStats = true
                options.jobs = jobs
            }
            let stats = try #require(result.summary.stats)
            #expect(stats.managers.map(\.name) == ["a", "b"])
            #expect(stats.managers.map(\.records) == [100, 100])  // 10 blank lines each are not records
            #expect(stats.steps.map(\.reformer) == ["list", "list", "list"])
            #expect(stats.steps.map(\.recordsIn) == [180, 180, 180])  // 20 invalid lines never reach a step
            #expect(stats.steps[0].rejected == 20)  // a's records without a name, b's undated ones
            let json = try JSON.parse(Array(stats.json.utf8))
            #expect(json[path: try ValuePath(parsing: "managers[1].records")] == .int(100))
        }
    }

    /// Replaces the file at `path` with `path.gz`, as `gzip -f` does (zlib, in process).
    func gzip(_ path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try Data(ContentDecodingFuzzing.compressed(bytes, windowBits: 31)).write(to: URL(fileURLWithPath: path + ".gz"))
        try FileManager.default.removeItem(atPath: path)
    }
}

extension FileManager {
    fileprivate func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
