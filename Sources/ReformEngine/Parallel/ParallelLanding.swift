import Dispatch
import ReformSDK

/// Lands a manager's NDJSON inputs on ``RunOptions/jobs`` workers, keeping the output in input order.
///
/// This thread cuts each input into batches of whole lines (``LineBatcher``) and queues them for
/// the workers (``WorkQueue``), each with its own parser, fast-path encoder and chain runners. A
/// worker turns a batch into what this thread then applies in batch order: for NDJSON outputs the
/// output bytes themselves (written as ``NDJSONWriter`` and the fast path write them), for the
/// others the reformed records, plus the dead-letter entries in the order one worker would have
/// made them. Line numbers and record sequence numbers are batch-relative until applied. At most
/// three batches per worker are in flight, so memory stays flat whatever the input's size.
///
/// Measured on 2 cores: a queue any free worker takes from beats handing batches round robin, and
/// letting this thread run batches itself while it waits is slower (the workers then wait for it
/// to queue the next ones).
struct ParallelLanding {
    let manager: ManagerRef
    let outputs: [OutputPlan]
    let options: RunOptions
    let meter: ProgressMeter?

    /// Whether `files` of a run with `outputs` can be landed in parallel: more than one job, no
    /// `--limit`/`--sample`, NDJSON inputs only, and chains that hold nothing between records.
    static func applies(to files: [String], outputs: [OutputRuntime], options: RunOptions) -> Bool {
        options.jobs > 1 && options.limit == nil && options.sample == nil && !files.isEmpty
            && files.allSatisfy(InputFiles.isNDJSON) && outputs.allSatisfy { ChainRunner.isPerRecord($0.plan.chain) }
    }

    /// Lands every file; returns the records landed and the input bytes read.
    func land(
        _ files: [String], into runtimes: inout [OutputRuntime], deadLetter: DeadLetter, summary: inout RunSummary
    ) throws(RunError) -> (records: Int, bytes: Int) {
        let formats = runtimes.map(\.format)
        let encodesBytes = zip(outputs, formats).map { $0.rows == nil && $1 == .ndjson }
        var workers: [BatchWorker] = []
        do throws(RunError) {
            for _ in 0..<options.jobs {
                // Each worker builds its own encoder and projection: sharing their arrays would make
                // every line's retains fight over one reference count across cores (measured: 3x
                // the retain time).
                let direct = options.directWrites ? DirectEncoder.make(for: manager, outputs: outputs, format: formats.first ?? .ndjson, limits: options.recordLimits) : nil
                let projection = Runner.projection(for: manager, outputs: outputs)
                workers.append(
                    try BatchWorker(
                        manager: manager, outputs: outputs, encodesBytes: encodesBytes, direct: direct, projection: projection,
                        timing: options.collectsStats, limits: options.recordLimits))
            }
        } catch {
            throw RunError(SourceError(manager: manager.name, message: error.description).description)
        }
        let queue = WorkQueue()
        let finished = DispatchGroup()
        for (index, worker) in workers.enumerated() {
            DispatchQueue(label: "reform.worker.\(index)").async(group: finished) {
                while let batch = queue.pop() { batch.run(on: worker) }
            }
        }
        defer {
            queue.close(workers: workers.count)
            finished.wait()
        }
        var state = Progress()
        var pending: [Batch] = []
        var failure: RunError?
        var spareBuffers: [[[UInt8]]] = []
        for path in files {
            var batcher: LineBatcher
            do { batcher = try LineBatcher(path: path, batchSize: options.batchSize, maximumLine: options.recordLimits.maximumDocumentSize + 1) } catch {
                failure = RunError(SourceError(manager: manager.name, message: error.description).description)
                break
            }
            let inputName = path == "-" ? "<stdin>" : path
            var reading = true
            state.startInput()
            while reading || !pending.isEmpty {
                while reading, failure == nil, pending.count < 3 * options.jobs {
                    let chunk: LineBatcher.Chunk?
                    do { chunk = try batcher.next() } catch {
                        failure = RunError(SourceError(manager: manager.name, message: error.description).description)
                        break
                    }
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
                guard failure == nil else { continue }
                // A write error is the output's, not the manager's: it names the output alone.
                do { try apply(batch, to: &runtimes, deadLetter: deadLetter, state: &state, summary: &summary) } catch {
                    failure = RunError(error.description)
                }
                let (input, buffers) = batch.takeBuffers()
                if let input { batcher.recycle(input) }
                spareBuffers.append(buffers)
                state.bytesOfInput = batcher.bytesRead
                meter?.landed = state.records
                meter?.read(batcher.bytesRead)
            }
            state.finishInput()
            meter?.finishInput()
            if failure != nil { break }
        }
        for batch in pending { batch.done.wait() }
        if let failure { throw failure }
        for worker in workers {
            for (index, chain) in worker.chains.enumerated() { runtimes[index].addStageCounts(chain.counts) }
        }
        meter?.finish()
        return (state.records, state.bytes)
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

    private func apply(
        _ batch: Batch, to runtimes: inout [OutputRuntime], deadLetter: DeadLetter, state: inout Progress,
        summary: inout RunSummary
    ) throws(OutputError) {
        let result = batch.result
        for event in result.events {
            switch event {
            case .dead(let entry):
                try deadLetter.add(
                    manager: manager.name, sequence: state.records + entry.sequence,
                    input: "\(batch.inputName):\(state.linesBefore + entry.line)", stage: entry.stage, error: entry.error,
                    record: entry.record, text: entry.text)
            case .record(let output, var record):
                record.origin.sequence += state.records
                record.origin.line += state.linesBefore
                try runtimes[output].take(record, inputName: batch.inputName, deadLetter: deadLetter)
            }
        }
        for (index, bytes) in result.bytes.enumerated() where !bytes.isEmpty || result.encoded[index] > 0 {
            try runtimes[index].appendEncoded(bytes, count: result.encoded[index])
        }
        if result.direct > 0 {
            runtimes[0].countDirect(result.direct)
            summary.writtenDirectly += result.direct
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
            result = worker.process(chunk, buffers: buffers)
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
    /// A dead-letter entry, or a reformed record for an output that is not written as bytes.
    enum Event {
        case dead(DeadEntry)
        case record(output: Int, Record)
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
    var encoded: [Int] = []
    /// Records the fast path wrote (into `bytes[0]`).
    var direct = 0
    /// Records (non-blank lines) and lines in the batch.
    var records = 0
    var lines = 0
}
