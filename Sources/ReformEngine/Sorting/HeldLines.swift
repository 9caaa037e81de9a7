import ReformConcurrency
import ReformSDK

/// The last reformer of an NDJSON output's chain when it is only `sort`, `dedupe` and `limit`
/// steps, run on the lines written rather than on records: the output's file hands every line to
/// it (``OutputFile/heldLines``), it reads the keys its steps need from the line's bytes, holds
/// the line (a `sort`) or passes it on (`dedupe`, `limit` without a sort), and at the end of the
/// run writes the held lines in order.
///
/// The steps see exactly what they would as records: a line is the record's JSON as the writer
/// prints it, and a key parsed back from it equals the record's value there (numbers compare by
/// value across int and double, strings round-trip). So the output is the same bytes as the
/// general path's, which holds records and encodes them at the end (held to that by
/// `HeldLinesTests`). What it saves is building, holding and encoding every record: the
/// reformers before it run on the compiled path, or in parallel workers, straight to bytes.
///
/// A sort keeps about `sortMemory` bytes of lines and spills the rest (``ExternalSort``).
final class HeldLines {
    /// A `dedupe` or `limit` step, before or after the sort, with its running state.
    private struct Step {
        enum Kind {
            /// Keys at these located paths (the whole record when `nil`).
            case dedupe([Int]?)
            case limit(Int)
        }

        let kind: Kind
        var seen: Set<Value> = []
        var count = 0
    }

    /// The reformer the steps make up, for `--stats`.
    let reformer: String
    /// Lines taken (records into the reformer) and lines that came out, so far.
    private(set) var counts = ChainRunner.StageCounts()
    /// Whether to time the steps (``ChainRunner/StageCounts/seconds``).
    var timing = false

    private var before: [Step]
    private var after: [Step]
    /// The located path a sort orders by, and its direction; `nil` without a sort.
    private let sort: (path: Int, descending: Bool)?
    private var held: ExternalSort<HeldLine>?
    private let paths: [ValuePath]
    private var locator: FieldLocator
    private var parser = JSONParser(limits: JSONLimits(maximumDepth: Int.max, maximumDocumentSize: Int.max))
    /// The start of a line whose end has not been written yet.
    private var partial: [UInt8] = []
    /// Where the current line's keys are read from: not read yet, ``locator``'s ranges,
    /// ``whole`` (a line the locator could not read), or ranges a held line kept (``storedRanges``).
    private enum KeySource { case unread, located, parsed, stored }
    private var source = KeySource.unread
    private var whole: Value?
    private var storedRanges: [Range<Int>?] = []
    /// Whether a step after the sort reads keys (a `dedupe`), so held lines keep their ranges.
    private let readsKeysAfterSort: Bool

    private init(reformer: String, steps: [StepPlan], paths: [ValuePath], sortMemory: Int) {
        self.reformer = reformer
        self.paths = paths
        let keyPaths = paths.map(HeldLines.keys(of:))
        locator = FieldLocator(paths: keyPaths)
        let position = { (path: ValuePath) in keyPaths.firstIndex(of: HeldLines.keys(of: path)) ?? 0 }
        var before: [Step] = []
        var after: [Step] = []
        var sort: (path: Int, descending: Bool)?
        for step in steps {
            switch step.kind {
            case .sort(let key, let descending): sort = (position(key), descending)
            case .dedupe(let keys):
                let step = Step(kind: .dedupe(keys.isEmpty ? nil : keys.map(position)))
                if sort == nil { before.append(step) } else { after.append(step) }
            case .limit(let limit):
                if sort == nil { before.append(Step(kind: .limit(limit))) } else { after.append(Step(kind: .limit(limit))) }
            default: continue
            }
        }
        self.before = before
        self.after = after
        readsKeysAfterSort = after.contains { if case .dedupe = $0.kind { true } else { false } }
        self.sort = sort
        if let sort { held = ExternalSort(budget: sortMemory, descending: sort.descending, context: ()) }
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
            let keys = HeldLines.keys(of: path)
            guard !keys.isEmpty, keys.count == path.components.count else { return false }
            if !paths.contains(where: { HeldLines.keys(of: $0) == keys }) { paths.append(path) }
            return true
        }
        for step in steps {
            switch step.kind {
            case .sort(let key, _):
                sorts += 1
                guard sorts == 1, add(key) else { return nil }
            case .dedupe(let keys):
                for key in keys { guard add(key) else { return nil } }
            case .limit: continue
            default: return nil
            }
        }
        let streamed = OutputPlan(
            chain: Array(plan.chain.dropLast()), rows: plan.rows, format: plan.format, path: plan.path, keys: plan.keys,
            byteOrderMark: plan.byteOrderMark, table: plan.table, location: plan.location)
        return (streamed, HeldLines(reformer: last.name, steps: steps, paths: paths, sortMemory: sortMemory))
    }

    /// The keys of `path`'s key components (all of them when it has no indexes).
    private static func keys(of path: ValuePath) -> [String] {
        path.components.compactMap { component in
            if case .key(let key) = component { key } else { nil }
        }
    }

    /// Takes written bytes: each complete line runs through the steps before the sort and is
    /// held, or without a sort is returned, with the others that passed, to be written now. The
    /// start of a line whose end is not in `bytes` waits for the next call.
    func take(_ bytes: [UInt8]) throws(SpillError) -> [UInt8] {
        let started = timing ? MonotonicClock.now() : 0
        defer { if timing { counts.seconds += MonotonicClock.now() - started } }
        var passing: [UInt8] = []
        // The buffers' closures cannot throw a typed error: the failure comes out as their result.
        let failure = bytes.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> SpillError? in
            var start = 0
            while let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let failure: SpillError?
                if partial.isEmpty {
                    failure = admit(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), passing: &passing)
                } else {
                    partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                    let line = partial
                    partial.removeAll(keepingCapacity: true)
                    failure = line.withUnsafeBytes { line in admit(line, passing: &passing) }
                }
                if let failure { return failure }
                start = end + 1
            }
            partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...]))
            return nil
        }
        if let failure { throw failure }
        return passing
    }

    /// Writes the held lines in order, through the steps after the sort, to `file` (which must no
    /// longer hand its lines here); call once, after the last bytes were taken.
    func release(into file: OutputFile) throws(OutputError) {
        do {
            if !partial.isEmpty {
                // Every record ends its line; this is only a last line without its newline.
                partial.append(UInt8(ascii: "\n"))
                file.buffer.append(contentsOf: try take(partial))
            }
            guard var sort = held else { return }
            held = nil
            let started = timing ? MonotonicClock.now() : 0
            defer { if timing { counts.seconds += MonotonicClock.now() - started } }
            let sorted = sort.sorted()
            while let held = try sorted.next() {
                let line = held.bytes.withUnsafeBytes { bytes in
                    let line = readHeader(of: bytes)
                    return HeldLines.passes(UnsafeRawBufferPointer(rebasing: bytes[line...]), &after, keys: self) ? line : nil
                }
                guard let line else { continue }
                counts.recordsOut += 1
                file.buffer.append(contentsOf: held.bytes[line...])
                file.buffer.append(UInt8(ascii: "\n"))
                try file.flushIfFull()
            }
        } catch let error as SpillError {
            throw OutputError(path: file.displayPath, message: error.message)
        } catch let error as OutputError {
            throw error
        } catch {
            throw OutputError(path: file.displayPath, message: "\(error)")
        }
    }

    /// Runs one line through the steps before the sort; holds it, or appends it to `passing`.
    /// Returns why the sort could not hold it, if it could not.
    private func admit(_ line: UnsafeRawBufferPointer, passing: inout [UInt8]) -> SpillError? {
        counts.recordsIn += 1
        source = .unread
        guard HeldLines.passes(line, &before, keys: self) else { return nil }
        if let sort, held != nil {
            let key = value(at: sort.path, in: line)
            do { try held?.append(HeldLine(bytes: heldBytes(of: line)), key: key) } catch { return error }
        } else {
            counts.recordsOut += 1
            passing.append(contentsOf: line)
            passing.append(UInt8(ascii: "\n"))
        }
        return nil
    }

    /// Whether `line` passes every step of `steps` (each keeping what it saw).
    private static func passes(_ line: UnsafeRawBufferPointer, _ steps: inout [Step], keys: HeldLines) -> Bool {
        for i in steps.indices {
            switch steps[i].kind {
            case .dedupe(let paths):
                // One path's value is its own key, as the general path's dedupe has it.
                let key: Value =
                    if let paths {
                        paths.count == 1 ? keys.value(at: paths[0], in: line) : .array(paths.map { keys.value(at: $0, in: line) })
                    } else {
                        keys.wholeValue(line)
                    }
                guard steps[i].seen.insert(key).inserted else { return false }
            case .limit(let limit):
                guard steps[i].count < limit else { return false }
                steps[i].count += 1
            }
        }
        return true
    }

    /// The value at located path `index` in `line` (null when missing), as `value[path:]` reads
    /// it from the record the line is.
    private func value(at index: Int, in line: UnsafeRawBufferPointer) -> Value {
        if source == .unread {
            source = locator.locate(line, parser: &parser) ? .located : .parsed
            if source == .parsed { whole = try? parser.parse(line) }
        }
        let range: Range<Int>?
        switch source {
        case .located: range = locator.ranges[index]
        case .stored: range = storedRanges[index]
        case .unread, .parsed: return whole?[path: paths[index]] ?? .null
        }
        guard let range else { return .null }
        // A located range is a valid value: the locate checked it.
        return (try? parser.parse(UnsafeRawBufferPointer(rebasing: line[range]))) ?? .null
    }

    /// The whole record `line` is.
    private func wholeValue(_ line: UnsafeRawBufferPointer) -> Value {
        if source != .parsed {
            source = .parsed
            whole = try? parser.parse(line)
        }
        return whole ?? .null
    }

    /// What a sort holds of `line`: the line after a header with where its keys are, when the
    /// steps after the sort read keys and the line's were located (so that they are not located
    /// again): a 1, then per located path its value's start + 1 (0: missing) and end as 32-bit
    /// numbers. Otherwise the header is a 0.
    private func heldBytes(of line: UnsafeRawBufferPointer) -> [UInt8] {
        guard readsKeysAfterSort, source == .located, line.count < Int(UInt32.max) else { return [0] + line }
        var bytes: [UInt8] = [1]
        bytes.reserveCapacity(1 + 8 * paths.count + line.count)
        for range in locator.ranges {
            for number in [range.map { $0.lowerBound + 1 } ?? 0, range?.upperBound ?? 0] {
                withUnsafeBytes(of: UInt32(number).littleEndian) { bytes.append(contentsOf: $0) }
            }
        }
        bytes.append(contentsOf: line)
        return bytes
    }

    /// Reads the header ``heldBytes(of:)`` wrote: the keys' ranges become the current line's;
    /// returns where the line starts.
    private func readHeader(of bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.first == 1 else {
            source = .unread
            return 1
        }
        source = .stored
        storedRanges.removeAll(keepingCapacity: true)
        for path in paths.indices {
            let start = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 1 + 8 * path, as: UInt32.self)))
            let end = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 5 + 8 * path, as: UInt32.self)))
            storedRanges.append(start == 0 ? nil : start - 1..<end)
        }
        return 1 + 8 * paths.count
    }
}

/// One line a sort holds: the record's JSON without its newline.
struct HeldLine: Spillable {
    let bytes: [UInt8]

    func spill(into writer: inout SpillWriter) { writer.block(bytes) }

    init(bytes: [UInt8]) { self.bytes = bytes }

    init(unspilling reader: inout SpillReader, context: Void) throws(SpillError) { bytes = try reader.block() }

    var estimatedBytes: Int { 32 + bytes.count }
}
