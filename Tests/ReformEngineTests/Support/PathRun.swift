import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport

/// One run of a pipeline over NDJSON lines, in process, on the general path or the fast paths: what
/// the tests that hold an optimised path to the general one compare.
struct PathRun {
    /// The output file's text.
    let out: String
    /// The dead-letter file's text (the temporary folder's path as `<tmp>`).
    let dead: String
    /// The run summary's text (the folder's path as `<tmp>`).
    let summary: String
    /// Records the fast paths wrote straight to the output.
    let direct: Int
    /// `--stats` per reformer: `name: N in, N out, N rejected`.
    let steps: [String]
    /// The reformers that ran on the written lines (`--stats`' `on_lines`).
    let onLines: [String]

    /// Runs `runName` of `yaml` (manager `a` reads `lines`) with the fast paths on (`direct`) or
    /// off, on `jobs` workers cut into batches of `batchSize` bytes, writing `outputName`, reading
    /// records nested at most `maximumDepth` deep, each sort keeping about `sortMemory` bytes.
    /// With `files`, the run's outputs declare these paths (written under the temporary folder),
    /// and ``out`` is each one's text after a `== PATH ==` line, then each of `tables`' query's
    /// rows (SQLite files there) after a `== PATH: QUERY ==` line.
    static func run(
        _ yaml: String, lines: [String], runName: String? = nil, direct: Bool, jobs: Int = 1, batchSize: Int? = nil,
        outputName: String = "out.ndjson", files: [String] = [], tables: [(path: String, query: String)] = [],
        maximumDepth: Int? = nil, sortMemory: Int? = nil
    ) throws -> PathRun {
        let folder = try TemporaryFolder()
        let input = try folder.write("a.ndjson", lines.map { $0 + "\n" }.joined())
        let pipeline = try PipelineLoader(environment: [:]).load(path: try folder.write("p.yaml", yaml))
        var options = RunOptions()
        options.runName = runName
        options.inputs = [("a", input)]
        if files.isEmpty {
            options.outputPath = folder.path + "/" + outputName
        } else {
            options.outputFolder = folder.path
        }
        options.deadLetterPath = folder.path + "/dead.ndjson"
        options.directWrites = direct
        options.jobs = jobs
        options.collectsStats = true
        if let batchSize { options.batchSize = batchSize }
        if let maximumDepth { options.recordLimits.maximumDepth = maximumDepth }
        if let sortMemory { options.sortMemory = sortMemory }
        let summary = try Runner(pipeline: pipeline, options: options).run()
        var out = files.isEmpty ? try folder.read(outputName) : try files.map { "== \($0) ==\n" + (try folder.read($0)) }.joined()
        for table in tables {
            let rows = try SQLiteFile(folder.path + "/" + table.path).rows(table.query)
            out += "== \(table.path): \(table.query) ==\n" + rows.map { $0 + "\n" }.joined()
        }
        return PathRun(
            out: out,
            dead: ((try? folder.read("dead.ndjson")) ?? "").replacingOccurrences(of: folder.path, with: "<tmp>"),
            summary: summary.description.replacingOccurrences(of: folder.path, with: "<tmp>"),
            direct: summary.writtenDirectly,
            steps: (summary.stats?.steps ?? []).map { "\($0.reformer): \($0.recordsIn) in, \($0.recordsOut) out, \($0.rejected) rejected" },
            onLines: (summary.stats?.steps ?? []).filter(\.onLines).map(\.reformer)
        )
    }
}
