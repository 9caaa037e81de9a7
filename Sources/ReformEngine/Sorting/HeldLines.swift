import ReformConcurrency
import ReformSDK

/// The last reformer of an NDJSON output's chain when it is only `sort`, `dedupe` and `limit`
/// steps, run on the lines written rather than on records: the output's file hands every line to
/// it (``OutputFile/lineHolder``), it reads the keys its steps need from the line's bytes, holds
/// the line (a `sort`) or passes it on (`dedupe`, `limit` without a sort), and at the end of the
/// run writes the held lines in order.
///
/// The steps see exactly what they would as records: a line is the record's JSON as the writer
/// prints it, and a key parsed back from it is the record's value there as `sort` and `dedupe`
/// compare it (``Value/asWritten``: strings round-trip, numbers read back as they print). So the
/// output is the same bytes as the general path's, which holds records and encodes them at the
/// end (held to that by `HeldLinesTests`). What it saves is building, holding and encoding every record: the
/// reformers before it run on the compiled path, or in parallel workers, straight to bytes.
///
/// A sort keeps about `sortMemory` bytes of lines and spills the rest (``ExternalSort``). The
/// steps themselves are ``LineSteps``.
final class HeldLines: LineHolder {
    /// The reformer the steps make up, for `--stats`.
    let reformer: String
    /// Whether to time the steps (``ChainRunner/StageCounts/seconds``).
    var timing = false
    /// Whether a second thread may copy out half of the sorted lines at the end (`--jobs` 2 or
    /// more; ``ParallelLineWriter``), write them (``BlockAppender``), and write the sort's spilled
    /// runs while lines keep coming (``LineSort/spillsInBackground``).
    var writesInParallel = false {
        didSet { _ = withSteps { $0.spillsInBackground = writesInParallel } }
    }
    /// The steps and what they hold; taken out of the object while a call runs them, so that
    /// their state is a local value (an object's stored properties are checked for overlapping
    /// access at run time on every use: 1% of a sorted chain).
    private var steps: LineSteps?
    /// Lines taken (records into the reformer) and lines that came out, so far.
    private(set) var counts = ChainRunner.StageCounts()

    /// A fresh copy of the steps for a `--jobs` worker, which reads its batches' lines' keys with
    /// it (``LineSteps/appendEntry(of:to:)``); `nil` when the steps need each line in turn
    /// (``LineSteps/sortsEntries``).
    let keyReader: LineSteps?

    private init(reformer: String, steps: LineSteps) {
        self.reformer = reformer
        self.steps = steps
        keyReader = steps.sortsEntries ? steps : nil
    }

    /// `plan` without its last reformer, and that reformer as held lines, when the plan is an
    /// NDJSON file output without rows whose chain ends with a reformer of only `sort` (one),
    /// `dedupe` and `limit` steps over key paths, with no keys of its own; `nil` otherwise.
    static func split(_ plan: OutputPlan, format: OutputFormat, sortMemory: Int) -> (plan: OutputPlan, tail: HeldLines)? {
        guard format == .ndjson, plan.rows == nil, plan.table == nil, let last = plan.chain.last, last.keys == nil,
            case .steps(let steps) = last.kind, !steps.isEmpty
        else { return nil }
        var paths: [ValuePath] = []
        var sorts = 0
        func add(_ path: ValuePath) -> Bool {
            let keys = LineSteps.keys(of: path)
            guard !keys.isEmpty, keys.count == path.components.count else { return false }
            if !paths.contains(where: { LineSteps.keys(of: $0) == keys }) { paths.append(path) }
            return true
        }
        for step in steps {
            guard case .holding(let holding) = step.kind else { return nil }
            switch holding.step.heldLinesForm {
            case .sort(let key, _):
                sorts += 1
                guard sorts == 1, add(key) else { return nil }
            case .dedupe(let keys):
                for key in keys { guard add(key) else { return nil } }
            case .limit: continue
            }
        }
        let streamed = OutputPlan(
            chain: Array(plan.chain.dropLast()), rows: plan.rows, format: plan.format, path: plan.path, keys: plan.keys,
            byteOrderMark: plan.byteOrderMark, table: plan.table, location: plan.location, escapeFormulas: plan.escapeFormulas,
            escapesControls: plan.escapesControls)
        return (streamed, HeldLines(reformer: last.name, steps: LineSteps(steps: steps, paths: paths, sortMemory: sortMemory)))
    }

    /// Takes written bytes: each complete line runs through the steps before the sort and is
    /// held, or without a sort is returned, with the others that passed, to be written now. The
    /// start of a line whose end is not in `bytes` waits for the next call.
    func take(_ bytes: [UInt8]) throws(SpillError) -> [UInt8] {
        // The steps are out only while they release their lines, after the file stopped handing
        // lines here; were bytes to come then, they pass as they are rather than be lost.
        try withSteps { (work) throws(SpillError) in try work.take(bytes) } ?? bytes
    }

    /// Runs `body` on the steps taken out of the object (``steps``), timed when ``timing``, and
    /// puts them back with their counts; `nil` (and `body` not run) when they are out already.
    private func withSteps<Result, Failure: Error>(_ body: (inout LineSteps) throws(Failure) -> Result) throws(Failure) -> Result? {
        guard var work = steps.take() else { return nil }
        let started = timing ? MonotonicClock.now() : 0
        defer {
            if timing { work.counts.seconds += MonotonicClock.now() - started }
            counts = work.counts
            steps = work
        }
        return try body(&work)
    }

    /// Holds lines whose keys a worker read with ``keyReader``, after every line taken before
    /// (the file hands on what it buffered first, always whole lines: flush it before).
    func take(batch: HeldBatch) throws(SpillError) {
        // Workers make entries only for steps that take them, and only until the release.
        let unexpected = SpillError(message: "internal error: lines with their sort keys came after the sort's end")
        let taken: Void? = try withSteps { (work) throws(SpillError) in
            guard work.sortsEntries, !work.hasPartialLine else { throw unexpected }
            try work.take(batch: batch)
        }
        if taken == nil { throw unexpected }
    }

    /// Writes the held lines in order, through the steps after the sort, to `file` (which must no
    /// longer hand its lines here); call once, after the last bytes were taken.
    func release(into file: OutputFile) throws(OutputError) {
        do { _ = try withSteps { work in try work.release(into: file, inParallel: writesInParallel) } } catch let error as SpillError {
            throw OutputError(path: file.displayPath, message: error.message)
        } catch let error as OutputError {
            throw error
        } catch {
            throw OutputError(path: file.displayPath, message: "\(error)")
        }
    }
}

/// One line a dedupe holds: the record's JSON without its newline. (A sort holds its lines in a
/// ``LineArena`` and spills them as ``RunToWrite`` writes them; it counts each as one of these.)
struct HeldLine {
    let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    var estimatedBytes: Int { HeldLine.overhead + bytes.count }

    /// What a held line is counted for besides its bytes.
    static let overhead = 32
}
