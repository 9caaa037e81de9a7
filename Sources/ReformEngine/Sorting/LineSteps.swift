import ReformSDK
import ReformSystem

/// The work of ``HeldLines``: `sort`, `dedupe` and `limit` steps run on written NDJSON lines, the
/// keys they need read from each line's bytes, the lines a sort holds kept (and spilled past its
/// memory budget) until ``release(into:)`` writes them in order.
struct LineSteps {
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

    /// Lines taken (records into the steps) and lines that came out, so far.
    var counts = ChainRunner.StageCounts()

    private var before: [Step]
    private let after: [Step]
    /// The located path a sort orders by, and its direction; `nil` without a sort.
    private let sort: (path: Int, descending: Bool)?
    private var held: LineSort?
    /// Whether the sort's runs are written by a thread of their own (``LineSort/spillsInBackground``).
    var spillsInBackground: Bool {
        get { held?.spillsInBackground ?? false }
        set { held?.spillsInBackground = newValue }
    }
    /// The header ``writeHeader()`` writes for the current line.
    private var header: [UInt8] = []
    /// The header of a line held without its keys' ranges, when no step after the sort reads
    /// keys: one byte, the same for every line (building it per line was 80 instructions).
    private let plainHeader: [UInt8] = [0]
    private let paths: [ValuePath]
    private var locator: FieldLocator
    /// Finds the keys in the writer's own lines without the full check, when they are all
    /// top-level keys of printable ASCII; ``locator`` reads any other line.
    private var written: WrittenLineKeys?
    private var parser = JSONParser(limits: JSONLimits(maximumDepth: Int.max, maximumDocumentSize: Int.max))
    /// The start of a line whose end has not been written yet.
    private var partial: [UInt8] = []
    /// Where the current line's keys are read from: not read yet, ``written``'s or ``locator``'s
    /// ranges, ``whole`` (a line the locator could not read), or ranges a held line kept
    /// (``storedRanges``).
    private enum KeySource { case unread, written, located, parsed, stored }
    private var source = KeySource.unread
    private var whole: Value?
    private var storedRanges: [Range<Int>?] = []
    /// Whether a step after the sort reads keys (a `dedupe`), so held lines keep their ranges.
    private let readsKeysAfterSort: Bool
    /// For a sort followed at once by a `dedupe` on keys: per dedupe key, the line that sorts
    /// first so far, the only one of that key the dedupe will let through; `nil` otherwise, and
    /// once those lines pass the sort's memory budget (``admitFirst(_:key:)``).
    private var firsts: FirstPerKey?
    /// Lines the sort was handed, for ``FirstPerKey`` to know which came first.
    private var sequence = 0

    /// The steps of one reformer (only `sort`, once, `dedupe` and `limit`), reading keys at
    /// `paths` (key paths, each once); a sort keeps about `sortMemory` bytes of lines in memory.
    init(steps: [StepPlan], paths: [ValuePath], sortMemory: Int) {
        self.paths = paths
        let keyPaths = paths.map(LineSteps.keys(of:))
        locator = FieldLocator(paths: keyPaths)
        written = keyPaths.allSatisfy { $0.count == 1 } ? WrittenLineKeys(keys: keyPaths.map { $0[0] }) : nil
        let position = { (path: ValuePath) in keyPaths.firstIndex(of: LineSteps.keys(of: path)) ?? 0 }
        var before: [Step] = []
        var after: [Step] = []
        var sort: (path: Int, descending: Bool)?
        for step in steps {
            guard case .holding(let holding) = step.kind else { continue }
            switch holding.step.heldLinesForm {
            case .sort(let key, let descending): sort = (position(key), descending)
            case .dedupe(let keys):
                let step = Step(kind: .dedupe(keys.isEmpty ? nil : keys.map(position)))
                if sort == nil { before.append(step) } else { after.append(step) }
            case .limit(let limit):
                if sort == nil { before.append(Step(kind: .limit(limit))) } else { after.append(Step(kind: .limit(limit))) }
            }
        }
        self.before = before
        self.after = after
        readsKeysAfterSort = after.contains { if case .dedupe = $0.kind { true } else { false } }
        self.sort = sort
        if let sort { held = LineSort(budget: sortMemory, descending: sort.descending) }
        if sort != nil, case .dedupe(let paths?) = after.first?.kind {
            firsts = FirstPerKey(paths: paths, budget: max(1, sortMemory))
        }
    }

    /// The keys of `path`'s key components (all of them when it has no indexes).
    static func keys(of path: ValuePath) -> [String] {
        path.components.compactMap { component in
            if case .key(let key) = component { key } else { nil }
        }
    }

    /// Whether lines can reach the sort with their keys already read (``appendEntry(of:to:)`` on
    /// another thread, ``take(batch:)`` here): a sort with no step before it and no first-per-key table,
    /// whose only work per line until the end is reading its key and holding it, the same for
    /// every line whatever came before.
    var sortsEntries: Bool { sort != nil && held != nil && before.isEmpty && firsts == nil }

    /// Adds to `batch` what ``admit(_:passing:)`` hands the sort for `line` when ``sortsEntries``:
    /// its key and what the sort holds of it. For a copy of these steps on a `--jobs` worker,
    /// which reads the keys of its batch's lines so that the landing thread only holds them.
    /// Returns `false`, adding nothing, when the batch's block has no room for the line (it is
    /// made with room for its lines and ``maximumHeaderBytes`` each).
    mutating func appendEntry(of line: UnsafeRawBufferPointer, to batch: inout HeldBatch) -> Bool {
        source = .unread
        let key = sort.map { value(at: $0.path, in: line) } ?? .null
        if readsKeysAfterSort { writeHeader() }
        // ``plainHeader`` when no step after the sort reads keys: the locator's ranges are then
        // not read (reading them copied the whole locator, its arrays retained and released:
        // 140 instructions a line).
        let span = (readsKeysAfterSort ? header : plainHeader).withUnsafeBytes { header in batch.block?.append(header, line) }
        guard let span else { return false }
        batch.keys.append(key)
        batch.numeric.note(key)
        switch key {
        case .int, .double, .null: break
        default: batch.keysAreNumbers = false
        }
        batch.spans.append(span)
        batch.heldBytes += HeldLine.overhead + span.count + key.estimatedBytes
        return true
    }

    /// The most bytes the header of a held line takes (``heldBytes(of:)``).
    var maximumHeaderBytes: Int { 1 + (readsKeysAfterSort ? 8 * paths.count : 0) }

    /// Holds the lines of `batch`, whose keys ``appendEntry(of:to:)`` read, in the order they
    /// came after every line taken before; only when ``sortsEntries`` and no line is partly taken.
    mutating func take(batch: HeldBatch) throws(SpillError) {
        counts.recordsIn += batch.keys.count
        sequence += batch.keys.count
        try held?.append(batch)
    }

    /// Whether a line's start is waiting for its end (``take(_:)`` was handed bytes that did not
    /// end a line).
    var hasPartialLine: Bool { !partial.isEmpty }

    /// See ``HeldLines/take(_:)``.
    mutating func take(_ bytes: [UInt8]) throws(SpillError) -> [UInt8] {
        var passing: [UInt8] = []
        // The buffers' closures cannot throw a typed error: the failure comes out as their result.
        let failure = bytes.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> SpillError? in
            var start = 0
            while let end = NDJSONLine.end(in: bytes, from: start) {
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

    /// See ``HeldLines/release(into:)``; throws a ``SpillError`` or an ``OutputError``. With
    /// `inParallel`, a sort held in memory and no step after it, a second thread copies out half
    /// the lines (``ParallelLineWriter``); else a second thread writes the lines this one reads
    /// (``BlockAppender``).
    mutating func release(into file: OutputFile, inParallel: Bool = false) throws {
        if !partial.isEmpty {
            // Every record ends its line; this is only a last line without its newline.
            partial.append(UInt8(ascii: "\n"))
            file.buffer.append(contentsOf: try take(partial))
        }
        // Lines the first-per-key table kept, all found in one of its two tables, are one per
        // key: the dedupe after the sort would keep every one of them, so it is not run again.
        let distinct = firsts.map { $0.positions.isEmpty || $0.textPositions.isEmpty } ?? false
        try releaseFirsts()
        guard var sort = held else { return }
        held = nil
        let sorted = try sort.sorted()
        var steps = Array(after.dropFirst(distinct ? 1 : 0))
        if inParallel, steps.isEmpty,
            let writer = sorted.parallelWriter(rangesHeaderBytes: 1 + 8 * paths.count, chunkBytes: 256 << 10)
        {
            counts.recordsOut += try writer.write(into: file)
            return
        }
        // With `--jobs`, a thread of its own writes what this one merges (``BlockAppender``).
        let appender = inParallel ? BlockAppender(file: file) : nil
        do {
            try release(sorted, through: &steps, into: file, appender: appender)
        } catch {
            try? appender?.finish()
            throw error
        }
        try appender?.finish()
    }

    /// Writes the lines of `sorted` that pass `steps` to `file`, or hands them to `appender`.
    private mutating func release(
        _ sorted: SortedLines, through steps: inout [Step], into file: OutputFile, appender: BlockAppender?
    ) throws {
        // Into a local buffer handed on a MiB at a time: appending to the file's own buffer (a
        // class's property, checked for exclusive access at every use) cost more than the copy.
        var lines: [UInt8] = []
        lines.reserveCapacity(LineSteps.releaseBlock + (64 << 10))
        try sorted.readEach { held in
            let line = UnsafeRawBufferPointer(rebasing: held[readHeader(of: held)...])
            guard passes(line, &steps) else { return }
            counts.recordsOut += 1
            lines.append(contentsOf: line)
            lines.append(UInt8(ascii: "\n"))
            guard lines.count >= LineSteps.releaseBlock else { return }
            if let appender {
                lines = try appender.hand(lines)
                lines.reserveCapacity(LineSteps.releaseBlock + (64 << 10))
            } else {
                try file.append(lines)
                lines.removeAll(keepingCapacity: true)
            }
        }
        if let appender { _ = try appender.hand(lines) } else { try file.append(lines) }
    }

    /// Runs one line through the steps before the sort; holds it, or appends it to `passing`.
    /// Returns why the sort could not hold it, if it could not.
    private mutating func admit(_ line: UnsafeRawBufferPointer, passing: inout [UInt8]) -> SpillError? {
        counts.recordsIn += 1
        source = .unread
        var steps: [Step] = []
        swap(&steps, &before)
        let passed = passes(line, &steps)
        swap(&steps, &before)
        guard passed else { return nil }
        if let sort, held != nil {
            let key = value(at: sort.path, in: line)
            sequence += 1
            if firsts != nil {
                admitFirst(line, key: key)
                do { if let firsts, firsts.bytes > firsts.budget { try releaseFirsts() } } catch { return error }
                return nil
            }
            func hold(after header: UnsafeRawBufferPointer) -> SpillError? {
                do throws(SpillError) { try held?.append(header, line, key: key) } catch { return error }
                return nil
            }
            // See ``appendEntry(of:to:)`` on ``plainHeader``.
            guard readsKeysAfterSort else { return plainHeader.withUnsafeBytes(hold) }
            writeHeader()
            return header.withUnsafeBytes(hold)
        } else {
            counts.recordsOut += 1
            passing.append(contentsOf: line)
            passing.append(UInt8(ascii: "\n"))
        }
        return nil
    }

    /// Keeps `line` (whose sort key is `key`) when it is the first line of its dedupe key in
    /// sorted order so far: the first of its key, or one whose sort key comes strictly before the
    /// kept one's (on a tie the kept line came first, and a stable sort keeps it first).
    private mutating func admitFirst(_ line: UnsafeRawBufferPointer, key: Value) {
        guard var work = firsts.take(), let descending = sort?.descending else { return }
        defer { firsts = work }
        var textKey: FirstPerKey.TextKey?
        var valueKey = Value.null
        if work.paths.count == 1, let text = plainText(at: work.paths[0], in: line) {
            // An ASCII string's bytes are its identity: no string built, no Unicode-aware hash.
            textKey = FirstPerKey.TextKey(text)
        } else {
            valueKey = dedupeKey(at: work.paths, in: line)
        }
        let position = if let textKey { work.textPositions[textKey] } else { work.positions[valueKey] }
        if let position {
            guard ValueOrder.precedes(key, work.lines[position].key, descending: descending) == true else { return }
            let bytes = heldBytes(of: line)
            work.bytes +=
                bytes.count - work.lines[position].line.bytes.count + key.estimatedBytes
                - work.lines[position].key.estimatedBytes
            work.lines[position] = (key, sequence, HeldLine(bytes: bytes))
        } else {
            let kept = HeldLine(bytes: heldBytes(of: line))
            if let textKey { work.textPositions[textKey] = work.lines.count } else { work.positions[valueKey] = work.lines.count }
            work.lines.append((key, sequence, kept))
            work.bytes += 2 * kept.estimatedBytes + key.estimatedBytes + 48
        }
    }

    /// Hands the lines ``firsts`` kept to the sort in the order they came, and stops keeping
    /// them apart: the lines after go to the sort as they come, and the dedupe after the sort
    /// decides among them all. (The lines it dropped were each after a kept line of their key in
    /// sorted order, so the dedupe would have dropped them too.)
    private mutating func releaseFirsts() throws(SpillError) {
        guard let work = firsts.take() else { return }
        for kept in work.lines.sorted(by: { $0.sequence < $1.sequence }) {
            let failure = kept.line.bytes.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> SpillError? in
                do throws(SpillError) { try held?.append(LineSteps.noHeader, bytes, key: kept.key) } catch { return error }
                return nil
            }
            if let failure { throw failure }
        }
    }

    /// Whether `line` passes every step of `steps` (each keeping what it saw).
    private mutating func passes(_ line: UnsafeRawBufferPointer, _ steps: inout [Step]) -> Bool {
        for i in steps.indices {
            switch steps[i].kind {
            case .dedupe(let paths):
                let key = paths.map { dedupeKey(at: $0, in: line) } ?? wholeValue(line)
                guard steps[i].seen.insert(key).inserted else { return false }
            case .limit(let limit):
                guard steps[i].count < limit else { return false }
                steps[i].count += 1
            }
        }
        return true
    }

    /// Where the value at located path `index` lies in `line`: `.some(nil)` when missing, `nil`
    /// when the line could not be located (its keys are then read from ``whole``).
    private mutating func keyRange(at index: Int, in line: UnsafeRawBufferPointer) -> Range<Int>?? {
        if source == .unread {
            if written?.locate(line) == true {
                source = .written
            } else {
                source = locator.locate(line, parser: &parser) ? .located : .parsed
                if source == .parsed { whole = parser.parsedValue(line) }
            }
        }
        switch source {
        case .written: return .some(written?.ranges[index] ?? nil)
        case .located: return .some(locator.ranges[index])
        case .stored: return .some(storedRanges[index])
        case .unread, .parsed: return nil
        }
    }

    /// A dedupe's key for `line` over the located `paths`: one path's value is its own key, as the
    /// general path's dedupe has it; several make an array.
    private mutating func dedupeKey(at paths: [Int], in line: UnsafeRawBufferPointer) -> Value {
        if paths.count == 1 { return value(at: paths[0], in: line) }
        var keys: [Value] = []
        for path in paths { keys.append(value(at: path, in: line)) }
        return .array(keys)
    }

    /// The value at located path `index` in `line` (null when missing), as `value[path:]` reads
    /// it from the record the line is.
    private mutating func value(at index: Int, in line: UnsafeRawBufferPointer) -> Value {
        guard let found = keyRange(at: index, in: line) else { return whole?[path: paths[index]] ?? .null }
        guard let range = found else { return .null }
        // A located range is a valid value: the locate checked it.
        let bytes = UnsafeRawBufferPointer(rebasing: line[range])
        if let integer = LineSteps.plainInteger(bytes) { return .int(integer) }
        return parser.parsedValue(bytes) ?? .null
    }

    /// The text between the quotes of the value at located path `index` in `line` when it is a
    /// string of printable ASCII without escapes (its bytes are then the string); `nil` otherwise.
    private mutating func plainText(at index: Int, in line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let found = keyRange(at: index, in: line), let range = found, range.count >= 2,
            line[range.lowerBound] == UInt8(ascii: "\"")
        else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: line[(range.lowerBound + 1)..<(range.upperBound - 1)])
        return LineSteps.isPrintableASCIIWithoutBackslash(text) ? text : nil
    }

    /// Whether every byte of `text` is printable ASCII other than a backslash; eight at a time
    /// (a byte at a time through `allSatisfy` was ~240 instructions a dedupe key).
    private static func isPrintableASCIIWithoutBackslash(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let base = text.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101
        var i = 0
        while i &+ 8 <= text.count {
            let x = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let backslash = x ^ (ones &* 0x5C)
            // A byte below 0x20, at or past 0x7F, or a backslash sets its high bit here.
            let flagged = (x &- ones &* 0x20) | (x &+ ones &* 0x01) | ((backslash &- ones) & ~backslash) | x
            if flagged & (ones &* 0x80) != 0 { return false }
            i &+= 8
        }
        while i < text.count {
            let c = text[i]
            guard c >= 0x20, c < 0x7F, c != UInt8(ascii: "\\") else { return false }
            i += 1
        }
        return true
    }

    /// The integer `bytes` are when they are a plain one as the writer prints it (an optional
    /// `-`, 1 to 18 digits, no leading zero, not `-0`, which reads as a double): what the parser
    /// would read, without a parse.
    private static func plainInteger(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { i = 1 }
        let digits = bytes.count - i
        guard digits >= 1, digits <= 18, bytes[i] != UInt8(ascii: "0") || (digits == 1 && !negative) else { return nil }
        var value = 0
        while i < bytes.count {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
            i += 1
        }
        return negative ? -value : value
    }

    /// The whole record `line` is.
    private mutating func wholeValue(_ line: UnsafeRawBufferPointer) -> Value {
        if source != .parsed {
            source = .parsed
            whole = parser.parsedValue(line)
        }
        return whole ?? .null
    }

    /// What a sort holds of `line`: the line after a header with where its keys are, when the
    /// steps after the sort read keys and the line's were located (so that they are not located
    /// again): a 1, then per located path its value's start + 1 (0: missing) and end as 32-bit
    /// numbers. Otherwise the header is a 0.
    private mutating func heldBytes(of line: UnsafeRawBufferPointer) -> [UInt8] {
        writeHeader()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(header.count + line.count)
        bytes.append(contentsOf: header)
        bytes.append(contentsOf: line)
        return bytes
    }

    /// Makes ``header`` the header of ``heldBytes(of:)`` for the current line (whose keys were
    /// read last). Into the stored array, not one passed `inout`: passing a stored property
    /// `inout` to a method of the same value copied the whole value at every line.
    private mutating func writeHeader() {
        header.removeAll(keepingCapacity: true)
        guard readsKeysAfterSort else {
            header.append(0)
            return
        }
        let ranges: [Range<Int>?]
        switch source {
        case .written: ranges = written?.ranges ?? []
        case .located: ranges = locator.ranges
        case .unread, .parsed, .stored: ranges = []
        }
        // Ranges are 32-bit: a line past 4 GiB (never written) keeps none, and its keys are read again.
        let withRanges = ranges.count == paths.count && ranges.allSatisfy { ($0?.upperBound ?? 0) < Int(UInt32.max) }
        header.append(withRanges ? 1 : 0)
        if withRanges {
            for range in ranges {
                LineSteps.append(UInt32(range.map { $0.lowerBound + 1 } ?? 0), to: &header)
                LineSteps.append(UInt32(range?.upperBound ?? 0), to: &header)
            }
        }
    }

    /// How many bytes of sorted lines ``release(into:)`` hands the file at a time.
    private static let releaseBlock = 1 << 20

    /// No bytes: what goes before a line already held with its header.
    private static var noHeader: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    /// Appends `number`'s four bytes, lowest first.
    private static func append(_ number: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: number))
        bytes.append(UInt8(truncatingIfNeeded: number >> 8))
        bytes.append(UInt8(truncatingIfNeeded: number >> 16))
        bytes.append(UInt8(truncatingIfNeeded: number >> 24))
    }

    /// Reads the header ``heldBytes(of:)`` wrote: the keys' ranges become the current line's;
    /// returns where the line starts.
    private mutating func readHeader(of bytes: UnsafeRawBufferPointer) -> Int {
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
