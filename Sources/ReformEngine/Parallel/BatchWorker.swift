@_spi(Engine) import ReformSDK
import ReformSystem

/// One worker of a parallel landing: its own parser, fast-path encoder and chain runner per
/// output, turning batches of NDJSON lines into a ``BatchResult`` exactly as the single-core path
/// would land, reform and reject each line.
///
/// A worker runs each output's chain up to the first reformer that holds records (a `sort`, a
/// `dedupe`, a plugin; ``ChainRunner/perRecordStages(_:)``); the landing thread runs the rest in
/// input order. Where the compiled path covers the chain's start (``ChainPrefix``), a line runs
/// through it as bytes first.
///
/// `@unchecked Sendable`: a worker is only ever used by its own thread, one batch at a time;
/// the landing thread reads ``chains`` after every batch is done.
final class BatchWorker: @unchecked Sendable {
    private(set) var chains: [ChainRunner]
    private let manager: ManagerRef
    private let stageSuffixes: [String]
    private let encodesBytes: [Bool]
    private var direct: LineEncoder?
    /// Whether ``direct`` is set, known without copying the encoder as `direct != nil` would.
    private let hasDirect: Bool
    private let prefix: ChainPrefix?
    /// The fast path of a run with several outputs (``FanOut``), and whether it is set.
    private var fanOut: FanOut?
    private let hasFanOut: Bool
    /// The outputs the fan-out writes, when it leaves others to the general path, and the
    /// compiled start of the one it leaves, when there is one (``FanOut/rest``) within the part
    /// of that output's chain the workers run.
    private let fanOutCovers: [Bool]?
    private let fanOutRest: ChainPrefix?
    /// What each reformer did with the lines the fast path or the compiled start took, per output
    /// from the first (see ``LineEncoder/stageCounts``).
    var directStageCounts: [[ChainRunner.StageCounts]] {
        if let fanOut { return (0..<fanOut.outputs).map { fanOut.stageCounts(of: $0) ?? [] } }
        if let counts = direct?.stageCounts ?? prefix?.stageCounts { return [counts] }
        return []
    }
    /// Per output, a copy of the steps of the sort its chain ends with, to read the sort keys of
    /// the lines this worker writes (``OutputRuntime/sortKeyReader``); `nil` for other outputs.
    private var sortKeyReaders: [LineSteps?]
    private let projection: JSONProjection?
    private var parser: JSONParser
    private var produced: [Record] = []
    /// The bytes of the batches this worker reads itself (``LineBatcher/Chunk/range(_:start:end:)``),
    /// reused from batch to batch.
    private var inputBuffer: [UInt8] = []
    private var rejected: [ChainRunner.Rejection] = []

    init(
        manager: ManagerRef, outputs: [OutputPlan], encodesBytes: [Bool], direct: LineEncoder?, prefix: ChainPrefix?,
        fanOut: FanOut? = nil, sortKeyReaders: [LineSteps?] = [], projection: JSONProjection?, timing: Bool,
        limits: JSONLimits = NDJSONReader.defaultLimits
    ) throws(RunError) {
        self.manager = manager
        self.sortKeyReaders = sortKeyReaders
        parser = JSONParser(limits: limits)
        chains = try outputs.map { output throws(RunError) in
            let perRecord = output.chain.prefix(ChainRunner.perRecordStages(output.chain))
            var chain: ChainRunner
            do throws(UnmadeReformer) {
                chain = try ChainRunner(plans: Array(perRecord), origin: Origin(manager: manager, sequence: 0))
            } catch {
                throw RunError(error)
            }
            chain.timing = timing
            return chain
        }
        stageSuffixes = outputs.map { output in output.destination.map { " (output \($0))" } ?? "" }
        self.encodesBytes = encodesBytes
        self.direct = direct
        hasDirect = direct != nil
        let firstChainLength = outputs.first.map { ChainRunner.perRecordStages($0.chain) } ?? 0
        self.prefix = direct == nil && prefix.map { $0.stages <= firstChainLength } == true ? prefix : nil
        self.projection = projection
        self.fanOut = direct == nil ? fanOut : nil
        hasFanOut = self.fanOut != nil
        fanOutCovers = self.fanOut.flatMap { $0.isPartial ? $0.covers : nil }
        fanOutRest = self.fanOut?.rest.flatMap { rest in
            rest.prefix.stages <= ChainRunner.perRecordStages(outputs[rest.output].chain) ? rest.prefix : nil
        }
    }

    /// Lands each line in `bytes[range]` (whole lines, the last perhaps without its newline).
    private func land(lines bytes: [UInt8], _ range: Range<Int>, into result: inout BatchResult) {
        bytes.withUnsafeBufferPointer { whole in
            guard let base = whole.baseAddress.map({ $0 + range.lowerBound }) else { return }
            let count = range.count
            var position = 0
            while position < count {
                let newline = memchr(base + position, 0x0A, count - position)
                let end = newline.map { UnsafePointer<UInt8>(OpaquePointer($0)) - base } ?? count
                result.lines += 1
                if let contentEnd = NDJSONLine.contentEnd(base, from: position, to: end) {
                    result.records += 1
                    let line = UnsafeRawBufferPointer(start: base + position, count: contentEnd - position)
                    land(line, sequence: result.records, lineNumber: result.lines, into: &result)
                }
                position = end + 1
            }
        }
    }

    /// The result of one batch; `buffers` are emptied arrays to write output bytes into (reused
    /// from earlier batches), one per output, taken (left empty) when there is one per output.
    ///
    /// `inout` so that the result holds the only reference to each array: a second one (the
    /// caller's copy) made the first append to each copy it into a new array, so every batch
    /// grew its output from nothing again (73% of a `--jobs 2` run's page faults).
    func process(_ chunk: LineBatcher.Chunk, buffers: inout [[UInt8]]) -> BatchResult {
        var result = BatchResult()
        if buffers.count == chains.count { swap(&result.bytes, &buffers) } else { result.bytes = chains.map { _ in [] } }
        result.encoded = chains.map { _ in 0 }
        let writtenBefore = fanOut?.written
        switch chunk {
        case .longLine(let kind):
            skip(kind, into: &result)
        case .lines(let bytes, let count):
            land(lines: bytes, 0..<count, into: &result)
        case .range(let input, let start, let end):
            let lines: RangedInput.Lines
            do {
                lines = try input.read(from: start, to: end, maximumLine: parser.limits.maximumDocumentSize + 1, into: &inputBuffer)
            } catch {
                result.failure = error
                return result
            }
            land(lines: inputBuffer, lines.bytes, into: &result)
            if let kind = lines.longLastLine { skip(kind, into: &result) }
        }
        if let writtenBefore, let written = fanOut?.written { result.fannedOut = zip(written, writtenBefore).map { $0 - $1 } }
        result.held = result.bytes.map { _ in HeldBatch(capacity: 0) }
        for output in sortKeyReaders.indices where sortKeyReaders[output] != nil && output < result.bytes.count {
            readSortKeys(of: output, into: &result)
        }
        return result
    }

    /// Reads the sort key of every line in output `output`'s bytes into ``BatchResult/held``,
    /// leaving the bytes empty: the landing thread then only holds the lines, in batch order.
    /// Bytes that do not end a line are left as they are (every record written ends one).
    private func readSortKeys(of output: Int, into result: inout BatchResult) {
        guard var reader = sortKeyReaders[output], result.bytes[output].last == UInt8(ascii: "\n") else { return }
        // Each line without its newline, after its header (a header longer than the newline keeps
        // the keys' ranges). The lines are counted so that the batch's arrays are made at their
        // size: the sort keeps them as they are (``LineSort/append(_:)``), spare room included.
        let extraHeaderBytes = reader.maximumHeaderBytes - 1
        let lines = result.bytes[output].withUnsafeBytes { bytes in
            var lines = 0
            var start = 0
            while let end = NDJSONLine.end(in: bytes, from: start) {
                lines += 1
                start = end + 1
            }
            return lines
        }
        var batch = HeldBatch(capacity: result.bytes[output].count + lines * extraHeaderBytes)
        batch.keys.reserveCapacity(lines)
        batch.spans.reserveCapacity(lines)
        let complete = result.bytes[output].withUnsafeBytes { bytes in
            var start = 0
            while let end = NDJSONLine.end(in: bytes, from: start) {
                guard reader.appendEntry(of: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), to: &batch) else { return false }
                start = end + 1
            }
            return true
        }
        sortKeyReaders[output] = reader
        // Never short; were it, the landing thread reads the lines' keys itself, as without workers.
        guard complete else { return }
        result.held[output] = batch
        result.bytes[output].removeAll(keepingCapacity: true)
    }

    /// The dead letter of a line over the size limit; like the streaming reader, without its text.
    /// Counts a line longer than the limit that was read past: a blank one as a line, any other
    /// as a record rejected for its length.
    private func skip(_ line: NDJSONLine.LongLine, into result: inout BatchResult) {
        result.lines += 1
        guard line == .tooLong else { return }
        result.records += 1
        result.events.append(tooLong(sequence: result.records, lineNumber: result.lines))
    }

    private func tooLong(sequence: Int, lineNumber: Int) -> BatchResult.Event {
        let limit = parser.limits.maximumDocumentSize
        let error = RecordError(
            code: "too-large", message: "column 1: line is longer than the limit of \(limit) bytes (raise it with --max-record-bytes)")
        return .dead(.init(sequence: sequence, line: lineNumber, stage: "input", error: error, record: nil, text: ""))
    }

    private func land(_ line: UnsafeRawBufferPointer, sequence: Int, lineNumber: Int, into result: inout BatchResult) {
        // Batches hold lines up to the limit plus their line end; the limit is on the content.
        if line.count > parser.limits.maximumDocumentSize {
            result.events.append(tooLong(sequence: sequence, lineNumber: lineNumber))
            return
        }
        if hasDirect, let written = direct?.encode(line, into: &result.bytes[0]) {
            result.direct += written
            return
        }
        // A line the fan-out took lands still for the outputs it leaves to the general path.
        var written: [Bool]?
        if hasFanOut, fanOut?.encode(line, into: &result.bytes) == true {
            guard let covered = fanOutCovers else { return }
            written = covered
            if let rest = fanOutRest, let reformed = rest.reform(line) {
                // Nothing when its compiled filter dropped it; else the record its start made.
                guard let value = reformed else { return }
                let record = Record(value, origin: Origin(manager: manager, sequence: sequence, line: lineNumber, page: 0))
                reform(record, fromStage: rest.stages, line: line, skipping: covered, into: &result)
                return
            }
        }
        if let prefix, let reformed = prefix.reform(line) {
            // Nothing when a compiled filter dropped it; else the record its compiled reformers made.
            guard let value = reformed else { return }
            let record = Record(value, origin: Origin(manager: manager, sequence: sequence, line: lineNumber, page: 0))
            reform(record, fromStage: prefix.stages, line: line, into: &result)
            return
        }
        let value: Value
        do {
            if let projection {
                value = try parser.parse(line, keeping: projection)
            } else {
                value = try parser.parse(line)
            }
        } catch {
            result.events.append(
                .dead(.init(sequence: sequence, line: lineNumber, stage: "input", error: error.recordError, record: nil, text: text(line))))
            return
        }
        let record = Record(value, origin: Origin(manager: manager, sequence: sequence, line: lineNumber, page: 0))
        reform(record, fromStage: 0, line: line, skipping: written, into: &result)
    }

    /// Runs `record` through each output's chain from `stage` (the part this worker runs), but
    /// those `skipping` marks (the fan-out wrote them), adding its rejections and what comes out
    /// to `result`.
    private func reform(
        _ record: Record, fromStage stage: Int, line: UnsafeRawBufferPointer, skipping: [Bool]? = nil, into result: inout BatchResult
    ) {
        for output in chains.indices where skipping?[output] != true {
            chains[output].process(record, fromStage: stage, into: &produced, rejected: &rejected)
            for rejection in rejected {
                var whole = rejection.record.value
                if rejection.stageIndex == 0, projection != nil, let original = try? JSON.parse(Array(line)) { whole = original }
                let origin = rejection.record.origin
                result.events.append(
                    .dead(
                        .init(
                            sequence: origin.sequence, line: origin.line, stage: "reformer '\(rejection.stage)'" + stageSuffixes[output],
                            error: rejection.error, record: whole, text: nil)))
            }
            rejected.removeAll(keepingCapacity: true)
            for record in produced {
                if encodesBytes[output] {
                    JSON.write(record.value, into: &result.bytes[output])
                    result.bytes[output].append(UInt8(ascii: "\n"))
                    result.encoded[output] += 1
                } else {
                    result.events.append(.record(output: output, record, after: result.bytes[output].count))
                }
            }
            produced.removeAll(keepingCapacity: true)
        }
    }

    private func text(_ line: UnsafeRawBufferPointer) -> String {
        String(decoding: line, as: UTF8.self)
    }
}
