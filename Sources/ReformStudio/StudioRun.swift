import ReformConcurrency
import ReformEngine
import ReformSDK
import ReformSystem

/// One run started from the studio: the engine's run in a task of its own, watched.
final class StudioRun: Sendable {
    /// Where a run is.
    enum Phase: String {
        case running, done, failed, cancelled
    }

    let id: Int
    let runName: String
    let mode: SourceMode
    /// The folder its outputs and dead letters are written under.
    let folder: String
    let watch = RunWatch()
    /// Where the run is, and once it has ended, its summary or error and when it ended.
    private let outcome = Guarded<(phase: Phase, summary: RunSummary?, error: String?, ended: Double?)>((.running, nil, nil, nil))
    private let task = Guarded<Task<Void, Never>?>(nil)
    private let started = MonotonicClock.now()

    /// Starts `pipeline`'s run with `options` (the watch added).
    init(id: Int, runName: String, mode: SourceMode, folder: String, pipeline: Pipeline, options: RunOptions) {
        self.id = id
        self.runName = runName
        self.mode = mode
        self.folder = folder
        var options = options
        options.watch = watch
        // A run from the page never changes a real database: PostgreSQL loads are rolled back.
        options.rollsBackPostgres = true
        // The figures `--stats json` prints, for the Summary tab.
        options.collectsStats = true
        let runner = Runner(pipeline: pipeline, options: options)
        let job = Task { [outcome] in
            do throws(RunError) {
                let summary = try await runner.run()
                outcome.withLock { $0 = (.done, summary, nil, MonotonicClock.now()) }
            } catch {
                let phase: Phase = error.code == .interrupted ? .cancelled : .failed
                outcome.withLock { $0 = (phase, nil, error.description, MonotonicClock.now()) }
            }
        }
        task.withLock { $0 = job }
    }

    /// Where the run is.
    var phase: Phase { outcome.withLock { $0.phase } }

    /// Returns when the run has ended (done, failed or cancelled) and written its last byte.
    func ended() async {
        await task.withLock { $0 }?.value
    }

    /// Stops the run: its requests are cancelled and its outputs abandoned.
    func cancel() {
        task.withLock { $0 }?.cancel()
    }

    /// What the watch has seen since `changes` (as the page last read it), `nil` when nothing
    /// changed and the run is still where it was.
    func json(after changes: Int?, phase seen: String?) -> Value? {
        guard let changes, watch.changes == changes, seen == phase.rawValue else { return json() }
        return nil
    }

    /// Page `number` of the run, body included; `nil` when it is no longer kept.
    func page(_ number: Int) -> Value? {
        watch.snapshot().pages.first { $0.number == number }?.json
    }

    /// The run as the page reads it: where it is, the summary or error, what the watch saw (pages
    /// without their bodies), and the start of each file it wrote.
    func json() -> Value {
        let (phase, summary, error, ended) = outcome.withLock { $0 }
        var object = Object()
        object["id"] = .int(id)
        object["run"] = .string(runName)
        object["mode"] = .string(mode.rawValue)
        object["phase"] = .string(phase.rawValue)
        object["seconds"] = .double((ended ?? MonotonicClock.now()) - started)
        if let error { object["error"] = .string(error) }
        if let summary {
            object["summary"] = .string(summary.description)
            object["landed"] = .array(summary.landed.map { .object(["manager": .string($0.manager), "records": .int($0.count)]) })
            object["written"] = .array(summary.written.map { .object(["output": .string($0.output), "records": .int($0.count)]) })
            object["rejected"] = .int(summary.rejected)
            if let stats = summary.stats, let figures = try? JSON.parse(Array(stats.json.utf8)) { object["stats"] = figures }
        }
        object["watch"] = watch.snapshot().json(bodies: false)
        if phase != .running { object["files"] = .array(StudioRun.files(under: folder)) }
        return .object(object)
    }

    /// The most of each written file the page is sent.
    static let fileBytes = 64 * 1024

    /// Each file under `folder` (outputs, the dead-letter file): its path below the folder, size
    /// and first ``fileBytes`` as text; an SQLite database (a `sqlite:` output) as its table's
    /// first rows, read as `reform cat` reads them; another binary file as only its size.
    static func files(under folder: String) -> [Value] {
        StudioChanges.files(under: folder).map { name in
            let path = FilePaths.resolve(name, against: folder)
            let bytes = (try? FilePaths.readAll(path, limit: fileBytes)) ?? []
            let size = FilePaths.regularFileSize(path) ?? bytes.count
            var object: Object = ["path": .string(name), "bytes": .int(size)]
            if bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) {
                object["kind"] = "sqlite"
                object["text"] = .string(tableRows(of: path))
            } else if StudioChanges.isBinary(bytes) {
                object["kind"] = "binary"
                object["text"] = ""
            } else {
                object["text"] = .string(String(decoding: bytes.prefix(fileBytes), as: UTF8.self))
                object["cut"] = .bool(size > fileBytes)
            }
            return .object(object)
        }
    }

    /// The most rows of a table shown.
    static let tableRowsShown = 50

    /// Each table of the SQLite database at `path` (a table output's, and its child tables): its
    /// name and columns, then its first rows as NDJSON; or why it cannot be read.
    static func tableRows(of path: String) -> String {
        do {
            var blocks: [String] = []
            for table in try TableReader.sqliteTables(at: path) {
                guard let address = TableAddress(TableAddress.scheme + path + "#" + table) else { continue }
                let reader = try TableReader(address)
                var lines = ["table \(reader.table) (\(reader.columns.joined(separator: ", "))):"]
                while lines.count <= tableRowsShown, let row = try reader.next() {
                    lines.append(JSON.compactString(row))
                }
                blocks.append(lines.joined(separator: "\n") + "\n")
            }
            return blocks.isEmpty ? "no tables\n" : blocks.joined(separator: "\n")
        } catch {
            return "\(error)"
        }
    }
}
