import Dispatch
import ReformConcurrency
@_spi(Engine) import ReformSDK

/// Lands a manager's NDJSON inputs on ``RunOptions/jobs`` workers, keeping the output in input order.
///
/// This thread cuts each input into batches and queues them for the workers (``WorkQueue``), each
/// with its own parser, fast-path encoder and chain runners: a plain file into byte ranges that
/// the workers read themselves (``RangeBatcher``), anything else (standard input, a pipe, `.gz`)
/// into batches of whole lines that this thread reads (``LineBatcher``). A
/// worker turns a batch into what this thread then applies in batch order: for NDJSON outputs the
/// output bytes themselves (written as ``NDJSONWriter`` and the fast path write them), for the
/// others the reformed records, plus the dead-letter entries in the order one worker would have
/// made them. Line numbers and record sequence numbers are batch-relative until applied. At most
/// three batches per worker are in flight, so memory stays flat whatever the input's size.
///
/// A chain that holds records (a `sort`, a `dedupe`, a plugin) is cut before its first such
/// reformer: the workers run the reformers before it, this thread the rest, in input order. A
/// sort an NDJSON output runs on its written lines (``HeldLines``) with no step before it that
/// needs the lines in turn has the workers read each line's sort key too: this thread only holds
/// the lines, and sorts and writes them at the end.
///
/// Measured on 2 cores: a queue any free worker takes from beats handing batches round robin, and
/// letting this thread run batches itself while it waits is slower (the workers then wait for it
/// to queue the next ones).
///
/// Whether a manager lands this way, and what its workers run on each line, the run's plan
/// decided (``ExecutionPlanner``).
struct ParallelLanding {
    let manager: ManagerRef
    let outputs: [OutputPlan]
    /// What takes each line on the workers, as the run's plan decided.
    let lines: LinePath
    /// The fields the workers' readers build, as the run's plan decided.
    let projection: JSONProjection?
    let options: RunOptions
    let meter: ProgressMeter?

    /// Lands every file; returns the records landed and the input bytes read.
    func land(_ files: [String], into state: inout RunState) throws(RunError) -> (records: Int, bytes: Int) {
        let workers = try makeWorkers(formats: state.outputs.map(\.format), sortKeyReaders: state.outputs.map(\.sortKeyReader))
        let queue = WorkQueue()
        let finished = DispatchGroup()
        for (index, worker) in workers.enumerated() {
            finished.enter()
            let work: @Sendable () -> Void = {
                while let batch = queue.pop() { batch.run(on: worker) }
                finished.leave()
            }
            // A thread of its own starts at once: Dispatch's pool started the second worker's
            // thread 3-5 ms after the first batch was queued (traced on 2 cores), a core left
            // idle in a run that takes ~130 ms.
            if !OwnThread.tryStart(work) { DispatchQueue(label: "reform.worker.\(index)").async(execute: work) }
        }
        defer {
            queue.close(workers: workers.count)
            finished.wait()
        }
        var progress = Progress()
        var spareBuffers: [[[UInt8]]] = []
        for path in files {
            try land(path, through: queue, into: &state, progress: &progress, spareBuffers: &spareBuffers)
        }
        for worker in workers {
            for (index, chain) in worker.chains.enumerated() { state.outputs[index].addStageCounts(chain.counts) }
            for (output, counts) in worker.directStageCounts.enumerated() { state.outputs[output].addStageCounts(counts) }
        }
        meter?.finish()
        return (progress.records, progress.bytes)
    }

    /// One worker per job, each with its own encoder, projection and chain runners: sharing their
    /// arrays would make every line's retains fight over one reference count across cores
    /// (measured: 3x the retain time).
    private func makeWorkers(formats: [OutputFormat?], sortKeyReaders: [LineSteps?]) throws(RunError) -> [BatchWorker] {
        let encodesBytes = zip(outputs, formats).map { $0.rows == nil && $1 == .ndjson && ChainRunner.isPerRecord($0.chain) }
        var workers: [BatchWorker] = []
        do throws(RunError) {
            for _ in 0..<options.jobs {
                // Each worker builds its own of what the plan names.
                var direct: LineEncoder?
                var fanOut: FanOut?
                var prefix: ChainPrefix?
                switch lines {
                case .direct:
                    direct = formats.first.flatMap { $0 }.flatMap {
                        LineEncoder.make(for: manager, outputs: outputs, format: $0, limits: options.recordLimits)
                    }
                case .fanOut:
                    fanOut = FanOut.make(for: manager, outputs: outputs, formats: formats, limits: options.recordLimits)
                case .prefix:
                    prefix = ChainPrefix(for: manager, outputs: outputs, limits: options.recordLimits)
                case .values:
                    break
                }
                let projection = self.projection.map { JSONProjection(keys: $0.keys) }
                workers.append(
                    try BatchWorker(
                        manager: manager, outputs: outputs, encodesBytes: encodesBytes, direct: direct, prefix: prefix, fanOut: fanOut,
                        sortKeyReaders: zip(sortKeyReaders, encodesBytes).map { $1 ? $0 : nil }, projection: projection,
                        timing: options.collectsStats, limits: options.recordLimits))
            }
        } catch {
            throw sourceFailure(error.description)
        }
        return workers
    }

    /// Cuts `path` into batches, keeps at most three per worker in flight, and applies each one's
    /// result in input order as it is done.
    private func land(
        _ path: String, through queue: WorkQueue, into state: inout RunState, progress: inout Progress,
        spareBuffers: inout [[[UInt8]]]
    ) throws(RunError) {
        let ranged: RangedInput?
        do { ranged = try RangedInput.open(path: path, stop: options.stop) } catch { throw sourceFailure(error.description) }
        if let ranged {
            var batcher: RangeBatcher
            do { batcher = try RangeBatcher(input: ranged, batchSize: options.batchSize) } catch {
                throw sourceFailure(error.description)
            }
            return try land(path, from: &batcher, through: queue, into: &state, progress: &progress, spareBuffers: &spareBuffers)
        }
        var batcher: LineBatcher
        do {
            batcher = try LineBatcher(
                path: path, batchSize: options.batchSize, maximumLine: options.recordLimits.maximumDocumentSize + 1, stop: options.stop)
        } catch {
            throw sourceFailure(error.description)
        }
        try land(path, from: &batcher, through: queue, into: &state, progress: &progress, spareBuffers: &spareBuffers)
    }

    /// Lands the batches of `path` that `batcher` cuts.
    private func land(
        _ path: String, from batcher: inout some LineBatches & ~Copyable, through queue: WorkQueue, into state: inout RunState,
        progress: inout Progress, spareBuffers: inout [[[UInt8]]]
    ) throws(RunError) {
        let inputName = path == "-" ? "<stdin>" : path
        var pending: [Batch] = []
        // Batches in flight are waited for even when the landing fails: their workers hold them.
        defer { for batch in pending { batch.done.wait() } }
        var reading = true
        progress.startInput()
        while reading || !pending.isEmpty {
            while reading, pending.count < 3 * options.jobs {
                let chunk: LineBatcher.Chunk?
                do { chunk = try batcher.next() } catch { throw sourceFailure(error.description) }
                guard let chunk else {
                    reading = false
                    break
                }
                let batch = Batch(chunk: chunk, inputName: inputName, buffers: spareBuffers.popLast() ?? [])
                queue.push(batch)
                pending.append(batch)
            }
            guard !pending.isEmpty else { break }
            let batch = pending.removeFirst()
            batch.done.wait()
            if let failure = batch.result.failure { throw sourceFailure(failure.description) }
            // A write error is the output's, not the manager's: it names the output alone.
            do { try apply(batch, to: &state, progress: &progress) } catch { throw RunError(error) }
            let (input, buffers) = batch.takeBuffers()
            if let input { batcher.recycle(input) }
            spareBuffers.append(buffers)
            progress.bytesOfInput = batcher.bytesRead
            meter?.landed = progress.records
            meter?.read(batcher.bytesRead)
        }
        progress.finishInput()
        meter?.finishInput()
    }

    /// The run's failure for a failure of this manager's input.
    private func sourceFailure(_ message: String) -> RunError {
        RunError(SourceError(manager: manager.name, message: message))
    }

    /// Running totals of the manager's landing, to turn batch-relative numbers into absolute ones.
    private struct Progress {
        var records = 0
        var linesBefore = 0
        var bytes = 0
        var bytesOfInput = 0
        mutating func startInput() {
            linesBefore = 0
            bytesOfInput = 0
        }
        mutating func finishInput() {
            bytes += bytesOfInput
        }
    }

    /// Applies a worker's result in input order: dead letters and records with their absolute
    /// sequence and line numbers, encoded bytes, and the fast path's count.
    private func apply(_ batch: Batch, to run: inout RunState, progress state: inout Progress) throws(OutputError) {
        let deadLetter = run.deadLetter
        let result = batch.result
        // Where the workers stopped in each output's chain (its whole length when they ran all of it).
        let workersRan = outputs.map { ChainRunner.perRecordStages($0.chain) }
        // Bytes of each output already appended: a record that took the general path between
        // lines the fast path wrote (rows as CSV) is written between them.
        var appended = result.bytes.map { _ in 0 }
        for event in result.events {
            switch event {
            case .dead(let entry):
                try deadLetter.add(
                    manager: manager.name, sequence: state.records + entry.sequence,
                    input: "\(batch.inputName):\(state.linesBefore + entry.line)", stage: entry.stage, error: entry.error,
                    record: entry.record, text: entry.text)
            case .record(let output, var record, let after):
                if after > appended[output] {
                    try run.outputs[output].appendEncoded(Array(result.bytes[output][appended[output]..<after]), count: 0)
                    appended[output] = after
                }
                record.origin.sequence += state.records
                record.origin.line += state.linesBefore
                let stage = workersRan[output]
                if stage == outputs[output].chain.count {
                    try run.outputs[output].take(record, inputName: batch.inputName, deadLetter: deadLetter)
                } else {
                    // The workers ran the chain up to `stage`; the rest holds records, in input order.
                    try run.outputs[output].process(
                        record, fromStage: stage, inputName: batch.inputName, deadLetter: deadLetter, original: { nil })
                }
            }
        }
        // Lines whose sort keys the worker read (all the output's lines of the batch; counted below).
        for (index, batch) in result.held.enumerated() where !batch.isEmpty {
            try run.outputs[index].appendHeld(batch)
        }
        for (index, bytes) in result.bytes.enumerated() where bytes.count > appended[index] || result.encoded[index] > 0 {
            try run.outputs[index].appendEncoded(
                appended[index] == 0 ? bytes : Array(bytes[appended[index]...]), count: result.encoded[index])
        }
        if result.direct > 0 {
            // The reformers' counts come from each worker's encoder once the landing is done.
            run.outputs[run.directOutput].countDirect(result.direct, stages: [])
            run.summary.writtenDirectly += result.direct
        }
        for (output, written) in result.fannedOut.enumerated() where written > 0 {
            run.outputs[output].countDirect(written, stages: [])
            run.summary.writtenDirectly += written
        }
        state.records += result.records
        state.linesBefore += result.lines
    }
}

/// One batch of lines on its way through a worker; the semaphore hands the result back.
///
/// `@unchecked Sendable`: the worker writes ``result`` before signalling ``done``, and the landing
/// thread reads it only after waiting on it, so the two never touch it at the same time.
final class Batch: @unchecked Sendable {
    private var chunk: LineBatcher.Chunk?
    private var buffers: [[UInt8]]
    let inputName: String
    let done = DispatchSemaphore(value: 0)
    private(set) var result = BatchResult()

    init(chunk: LineBatcher.Chunk, inputName: String, buffers: [[UInt8]]) {
        self.chunk = chunk
        self.inputName = inputName
        self.buffers = buffers
    }

    func run(on worker: BatchWorker) {
        if let chunk {
            for i in buffers.indices { buffers[i].removeAll(keepingCapacity: true) }
            result = worker.process(chunk, buffers: &buffers)
            buffers = []
        }
        done.signal()
    }

    /// Once applied: the input array and the output arrays, to be reused for later batches.
    func takeBuffers() -> (input: [UInt8]?, outputs: [[UInt8]]) {
        var input: [UInt8]?
        if case .lines(let bytes, _)? = chunk { input = bytes }
        chunk = nil
        var outputs: [[UInt8]] = []
        swap(&outputs, &result.bytes)
        return (input, outputs)
    }
}

/// What a worker made of one batch, with line and sequence numbers counted from the batch's start.
struct BatchResult {
    /// A dead-letter entry, or a reformed record for an output that is not written as bytes;
    /// `after`: how many of the output's ``bytes`` (a fast path's lines) come before it.
    enum Event {
        case dead(DeadEntry)
        case record(output: Int, Record, after: Int)
    }

    struct DeadEntry {
        let sequence: Int
        let line: Int
        let stage: String
        let error: RecordError
        let record: Value?
        let text: String?
    }

    var events: [Event] = []
    /// Per output, the bytes to append (NDJSON outputs), and how many records they hold.
    var bytes: [[UInt8]] = []
    /// Per output, its lines with their sort keys read, instead of its bytes, when its chain ends
    /// with a sort that takes lines so (``OutputRuntime/sortKeyReader``).
    var held: [HeldBatch] = []
    var encoded: [Int] = []
    /// Records the fast path wrote (into `bytes[0]`); a line it took may write none or several.
    var direct = 0
    /// Records a run with several outputs' fast path (``FanOut``) wrote into each output's `bytes`.
    var fannedOut: [Int] = []
    /// Records (non-blank lines) and lines in the batch.
    var records = 0
    var lines = 0
    /// Why the worker could not read the batch's lines (``LineBatcher/Chunk/range(_:start:end:)``);
    /// no line of it was landed then (only the output buffers it was handed are set), and the
    /// run fails with it.
    var failure: InputError?
}
