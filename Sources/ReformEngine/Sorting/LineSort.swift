import CPrefetch
import ReformConcurrency
import ReformSDK

/// The sort of ``LineSteps``: an ``ExternalSort`` of lines (what ``HeldLine`` holds of each),
/// their bytes kept end to end in a ``LineArena`` instead of an array a line.
///
/// The order and the spill files are ``ExternalSort``'s: ``ValueOrder`` on each line's key, ties
/// in the order lines came; past `budget` bytes (counted as ``HeldLine/estimatedBytes`` plus the
/// key's, as there) the lines held are sorted and spilled as a run, and ``sorted()`` merges the
/// runs with the lines still held (``MergedLines``).
struct LineSort {
    /// Bytes of lines held in memory before a run is spilled.
    let budget: Int
    /// Whether larger keys come first.
    let descending: Bool
    /// The lines held, made at the first one (so that a copy of an empty sort shares nothing).
    private var arena: LineArena?
    private var keys: [Value] = []
    private var spans: [LineSpan] = []
    /// The keys of lines taken a worker's batch at a time while every key is a number or null,
    /// after those in `keys`: the batches' own arrays, read as they are by a sort held whole.
    /// Appended to `keys` as they came, each key was copied into an array that grew by copying
    /// itself into fresh memory, on the landing thread. Other keys go to `keys` (kept apart,
    /// text keys would be held twice when joined: the batches' arrays live in the workers' heaps).
    private var batchKeys: [[Value]] = []
    private var heldBytes = 0
    /// Whether every key so far compares as a number: the merge of spilled runs then compares
    /// numbers' bits rather than `Value`s.
    private var numeric = NumericKeys()
    /// Where the next line goes in the arena's block being filled, and where that block ends
    /// (`nil`: no block yet). Kept here, in the sort's own value, rather than in the block (a
    /// class): each line held updated the block's count through an exclusivity check, and the
    /// block was looked up in the arena's array, retained and released, every line.
    private var fill: UnsafeMutableRawPointer?, fillEnd: UnsafeMutableRawPointer?
    private var file: SpillFile?
    private var runs: [Range<Int>] = []
    /// Whether a run is sorted and written by a thread of its own while lines keep coming
    /// (`--jobs`, where the landing thread spilling held up the workers): each run after the
    /// first is then half the budget, the other half filling meanwhile. One such spill at a time.
    /// The first run is the whole budget, written here: lines that fit the budget are never
    /// spilled (runs of half of it spilled a `--jobs 2` sort of 50 MB that `--jobs 1` held, and
    /// made it 1.2x slower than holding it).
    var spillsInBackground = false
    private var pending: BackgroundSpill?

    /// An empty sort in `descending` (or ascending) order.
    init(budget: Int, descending: Bool) {
        self.budget = max(1, budget)
        self.descending = descending
    }

    /// Adds the line `head` then `body` make, which sorts by `key`; spills a run when the budget
    /// is full.
    mutating func append(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, key: Value) throws(SpillError) {
        if !batchKeys.isEmpty { joinBatches() }
        let count = head.count + body.count
        let start: UnsafeMutableRawPointer?
        if let at = fill, let end = fillEnd, end - at >= count {
            start = at
        } else {
            let block = heldArena().freshBlock(atLeast: count)
            start = block.baseAddress
            fillEnd = block.baseAddress.map { $0 + block.count }
        }
        guard let start else {
            throw SpillError(message: "internal error: no room for a line of \(count) bytes to sort")
        }
        if let from = head.baseAddress { start.copyMemory(from: from, byteCount: head.count) }
        if let from = body.baseAddress { (start + head.count).copyMemory(from: from, byteCount: body.count) }
        fill = start + count
        let span = LineSpan(start: UnsafeRawPointer(start), count: count)
        numeric.note(key)
        keys.append(key)
        spans.append(span)
        heldBytes += HeldLine.overhead + span.count + key.estimatedBytes
        if heldBytes > runBudget { try spill() }
    }

    /// The bytes of a run: the budget, or after the first run, half of it while the other half
    /// may be spilling.
    private var runBudget: Int { spillsInBackground && file != nil ? max(1, budget / 2) : budget }

    /// Adds the lines of `batch` (a worker's block, taken as it is), in order; spills a run when
    /// the budget is full.
    mutating func append(_ batch: HeldBatch) throws(SpillError) {
        guard let block = batch.block, !batch.isEmpty else { return }
        heldArena().adopt(block)
        numeric.note(batch.numeric)
        if batch.keysAreNumbers && keys.isEmpty {
            // After a spill `keys` keeps its capacity for the next run; held by parts, that next
            // run would not use it, and it would lie outside the budget.
            if keys.capacity > 0 && batchKeys.isEmpty { keys = [] }
            batchKeys.append(batch.keys)
        } else {
            joinBatches()
            keys.append(contentsOf: batch.keys)
        }
        spans.append(contentsOf: batch.spans)
        heldBytes += batch.heldBytes
        if heldBytes > runBudget { try spill() }
    }

    /// The arena the lines are held in, made at the first line.
    private mutating func heldArena() -> LineArena {
        if let arena { return arena }
        let arena = LineArena(blockSize: min(1 << 20, budget / 8))
        self.arena = arena
        return arena
    }

    /// Appends the batches' keys to `keys`, grown once.
    private mutating func joinBatches() {
        guard !batchKeys.isEmpty else { return }
        keys.reserveCapacity(keys.count + batchKeys.reduce(0) { $0 + $1.count })
        // Each part let go once copied: the keys are not held twice over.
        for index in batchKeys.indices {
            keys.append(contentsOf: batchKeys[index])
            batchKeys[index] = []
        }
        batchKeys = []
    }

    /// The lines in order, read once; the sort is empty afterwards. Throws the failure of a run
    /// written in the background.
    mutating func sorted() throws(SpillError) -> SortedLines {
        try finishPendingSpill()
        // Spilled runs merge with `keys`; keys that are not all numbers are sorted as one array.
        // (`batchKeys` fills only while `keys` is empty: every other append joins first.)
        if file != nil { joinBatches() }
        let order: [Int]
        if !batchKeys.isEmpty, let numeric = SortOrder.numericPositions(ofParts: batchKeys, descending: descending) {
            order = numeric
        } else {
            joinBatches()
            order = SortOrder.positions(of: keys, descending: descending)
        }
        defer {
            keys = []
            spans = []
            batchKeys = []
            heldBytes = 0
            numeric = NumericKeys()
            arena = nil
            (fill, fillEnd) = (nil, nil)
            file = nil
            runs = []
        }
        // The blocks kept for a next run would sit beside the merge's read buffers.
        arena?.releaseSpare()
        guard let file, !runs.isEmpty else { return SortedLines(arena: arena, spans: spans, order: order) }
        // Spilled: the lines still held are merged with the runs, as an ``ExternalSort``'s are.
        return SortedLines(
            merging: MergedLines(
                file: file, runs: runs, arena: arena, keys: keys, spans: spans, order: order, descending: descending,
                numeric: numeric.order, budget: budget))
    }

    private mutating func spill() throws(SpillError) {
        guard let arena else { return }
        joinBatches()
        let isFirstRun = self.file == nil
        if isFirstRun { self.file = try SpillFile() }
        guard let file else { return }
        try finishPendingSpill()
        heldBytes = 0
        if spillsInBackground, !isFirstRun {
            // The blocks kept from the first run would be held beside the next run's.
            arena.releaseSpare()
            if let spill = BackgroundSpill.start(RunToWrite(file: file, arena: arena, keys: keys, spans: spans, descending: descending)) {
                // The run's lines are the spill's now; the next ones go to a new arena.
                pending = spill
                self.arena = nil
                (fill, fillEnd) = (nil, nil)
                keys = []
                spans = []
                return
            }
        }
        defer {
            keys.removeAll(keepingCapacity: true)
            spans.removeAll(keepingCapacity: true)
            arena.removeAll()
            (fill, fillEnd) = (nil, nil)
        }
        runs.append(try RunToWrite(file: file, arena: arena, keys: keys, spans: spans, descending: descending).write())
    }

    /// Waits for the run being written in the background, if any, and adds it to the runs.
    private mutating func finishPendingSpill() throws(SpillError) {
        guard let spill = pending else { return }
        pending = nil
        runs.append(try spill.wait())
    }
}

/// Lines of a ``LineSort`` to sort by their keys and write to its spill file as a run.
///
/// `@unchecked Sendable`: handed to the thread that writes it (``BackgroundSpill``), whose
/// alone the arena, keys and spans then are; the file is not used by the sort meanwhile.
struct RunToWrite: @unchecked Sendable {
    let file: SpillFile
    let arena: LineArena
    let keys: [Value]
    let spans: [LineSpan]
    let descending: Bool

    /// Sorts the lines and writes them as a run; where it lies in the file.
    func write() throws(SpillError) -> Range<Int> {
        let order = SortOrder.positions(of: keys, descending: descending)
        // The lines come from all over the arena in sorted order: each is asked for a few
        // lines before it is copied, as the in-memory writer does, its key with its span.
        return try file.appendLineRun(
            order, prefetch: { SortedLines.prefetch(arena, spans, keys, order, ahead: $0) },
            key: { keys[$0] }, line: { arena.bytes(at: spans[$0]) })
    }
}

/// A run of a ``LineSort`` written by a thread of its own.
final class BackgroundSpill: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Where the run lies in the file, or why it could not be written; `nil` until it is done.
    private var outcome: Result<Range<Int>, SpillError>?

    /// Starts writing `run` on a thread of its own; `nil` when no thread could be started.
    static func start(_ run: RunToWrite) -> BackgroundSpill? {
        let spill = BackgroundSpill()
        let started = OwnThread.tryStart {
            let outcome: Result<Range<Int>, SpillError>
            do throws(SpillError) { outcome = .success(try run.write()) } catch { outcome = .failure(error) }
            spill.lock.withLock {
                spill.outcome = outcome
                spill.lock.broadcast()
            }
        }
        return started ? spill : nil
    }

    /// Waits for the run to be written; where it lies in the file.
    func wait() throws(SpillError) -> Range<Int> {
        let done: Result<Range<Int>, SpillError> = lock.withLock {
            while true {
                if let outcome { return outcome }
                lock.wait()
            }
        }
        return try done.get()
    }
}

/// The lines of a ``LineSort`` in order, read once: straight from its arena when
/// nothing was spilled, else merged from the spilled runs and the lines still held.
final class SortedLines {
    private let arena: LineArena?
    /// The held lines in the order they came, and the positions that sort them.
    private let spans: [LineSpan]
    private let order: [Int]
    /// Whether the lines were read (they are read once).
    private var read = false
    private let merged: MergedLines?
    /// How many lines ahead of the one read the next held line to read is asked for.
    private static let lookahead = 8

    init(arena: LineArena?, spans: [LineSpan], order: [Int]) {
        self.arena = arena
        self.spans = spans
        self.order = order
        merged = nil
    }

    init(merging merged: MergedLines) {
        arena = nil
        spans = []
        order = []
        self.merged = merged
    }

    /// A writer of the lines, when none was read yet and all are held in memory (``readEach(_:)``
    /// reads them otherwise): at most about `chunkBytes` of lines to a chunk, and at least eight
    /// chunks when there are 512 lines or more (so that both threads have work).
    func parallelWriter(rangesHeaderBytes: Int, chunkBytes: Int) -> ParallelLineWriter? {
        guard let arena, merged == nil, !read, !order.isEmpty else { return nil }
        read = true
        let bytes = spans.reduce(0) { $0 + $1.count }
        let lines = min(chunkBytes / max(1, bytes / order.count), (order.count + 7) / 8)
        return ParallelLineWriter(
            arena: arena, spans: spans, order: order, rangesHeaderBytes: rangesHeaderBytes, chunkLines: max(64, lines))
    }

    /// Calls `body` with each line in order, its bytes valid during the call; read once.
    func readEach(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !read else { return }
        read = true
        if let merged { return try merged.readEach(body) }
        guard let arena else { return }
        for position in order.indices {
            SortedLines.prefetch(arena, spans, nil, order, ahead: position)
            try body(arena.bytes(at: spans[order[position]]))
        }
    }

    /// Starts loading what reading the held lines in `order` after the one at `index` needs:
    /// they come from all over memory, so the span (and key, when given) of the line twice the
    /// lookahead ahead, and the bytes of the line one lookahead ahead, whose span came by now.
    @inline(__always)
    static func prefetch(_ arena: LineArena, _ spans: [LineSpan], _ keys: [Value]?, _ order: [Int], ahead index: Int) {
        let near = index + lookahead
        let far = near + lookahead
        if far < order.count {
            spans.withUnsafeBufferPointer { reform_prefetch($0.baseAddress.map { $0 + order[far] }) }
            keys?.withUnsafeBufferPointer { reform_prefetch($0.baseAddress.map { $0 + order[far] }) }
        }
        if near < order.count { reform_prefetch(arena.bytes(at: spans[order[near]]).baseAddress) }
    }
}
