import ReformSDK

/// The lines of a ``LineSort`` that spilled, in order: its runs read back from the spill file,
/// merged with the lines it still holds, each line read where it lies (a run's read buffer, the
/// arena), not copied.
///
/// The order is ``SortedElements``' (``ValueOrder`` on the keys, ties to the earlier run, the
/// lines still held last), without its per-line costs: read as ``HeldLine``s, every line of a
/// spilled sort was an array of its own, made, copied once more to be written and freed; the
/// lines still held were copied into arrays before the merge began. A 2 GB sort spent a fifth
/// of its time there. (`Optional(...)` is spelled out where a key may be missing: `Value` takes
/// `nil` as its null, which a ternary made it.)
struct MergedLines {
    private let runs: [RunReader]
    private let descending: Bool
    /// The lines still held: their bytes, keys in the order they came, and the positions that
    /// sort them.
    private let arena: LineArena?
    private let keys: [Value]
    private let spans: [LineSpan]
    private let order: [Int]
    /// How every key compares as a number, when they all do (``NumericKeys``).
    private let numeric: NumericKeys.Order?

    /// A merge of the `runs` of `file` with the lines held in `arena` at `spans`, sorted by `keys`
    /// in `order`; `budget` bytes are shared among the runs' read buffers. `numeric` says how
    /// the keys of the runs and the held lines compare as numbers, when all of them do.
    init(
        file: SpillFile, runs: [Range<Int>], arena: LineArena?, keys: [Value], spans: [LineSpan], order: [Int],
        descending: Bool, numeric: NumericKeys.Order?, budget: Int
    ) {
        // Each run gets a share of the budget as its read buffer, within 4 KiB–1 MiB.
        let bufferSize = min(1 << 20, max(4 << 10, budget / max(1, runs.count)))
        self.runs = runs.map { RunReader(file: file, range: $0, bufferSize: bufferSize) }
        self.arena = arena
        self.keys = keys
        self.spans = spans
        self.order = order
        self.descending = descending
        self.numeric = numeric
    }

    /// Calls `body` with each line in order, its bytes valid during the call; read once.
    ///
    /// One call for all the lines, its state in locals: read a line a call, as an object's
    /// stored properties, every use of them was checked for exclusive access at run time (a
    /// fifth of the merge's time).
    func readEach(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let numeric { return try readEach(comparingAs: numeric, body) }
        // Each source's next line and its key: runs by index, then the held lines (`position`
        // of whose were read); a key is `nil` once its source is used up.
        var lines = runs.map { _ in UnsafeRawBufferPointer(start: nil, count: 0) }
        var heads: [Value?] = []
        var position = 0
        for index in runs.indices { heads.append(try Self.next(of: runs[index], line: &lines[index])) }
        heads.append(position < order.count ? Optional(keys[order[position]]) : nil)
        var heap = MergeHeap()
        for source in heads.indices where heads[source] != nil {
            heap.push(source) { a, b in Self.precedes(heads, a, b, descending: descending) }
        }
        while let top = heap.first {
            if top < runs.count {
                try body(lines[top])
                heads[top] = try Self.next(of: runs[top], line: &lines[top])
            } else {
                guard let arena else { break }
                try body(arena.bytes(at: spans[order[position]]))
                position += 1
                heads[top] = position < order.count ? Optional(keys[order[position]]) : nil
            }
            heap.firstMovedOn(usedUp: heads[top] == nil) { a, b in Self.precedes(heads, a, b, descending: descending) }
        }
    }

    /// ``readEach(_:)`` when every key compares as a number: each head's key as its bits in
    /// `numeric` (``NumericKeys/bits(of:in:descending:)``), compared as integers. Comparing the
    /// heads as `Value`s, each copied out of an array, was half of the merge's instructions.
    private func readEach(comparingAs numeric: NumericKeys.Order, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        // Per source (runs by index, then the held lines): its next line, its key's bits, and
        // whether that key is null (nulls go last, in the order they came).
        // Through pointers, not arrays: arrays captured by the nested functions were boxed, and
        // every use checked for exclusive access.
        var lines = runs.map { _ in UnsafeRawBufferPointer(start: nil, count: 0) }
        let bits = UnsafeMutablePointer<UInt64>.allocate(capacity: runs.count + 1)
        let isNull = UnsafeMutablePointer<Bool>.allocate(capacity: runs.count + 1)
        defer {
            bits.deallocate()
            isNull.deallocate()
        }
        var heap = MergeHeap()
        func precedes(_ a: Int, _ b: Int) -> Bool {
            if isNull[a] != isNull[b] { return isNull[b] }
            if isNull[a] || bits[a] == bits[b] { return a < b }
            return bits[a] < bits[b]
        }
        /// Takes in `key`, the next key of `source`; whether there is one.
        func head(_ source: Int, _ key: Value?) -> Bool {
            guard let key else { return false }
            let keyBits = NumericKeys.bits(of: key, in: numeric, descending: descending)
            bits[source] = keyBits ?? 0
            isNull[source] = keyBits == nil
            return true
        }
        var position = 0
        for index in runs.indices where head(index, try Self.next(of: runs[index], line: &lines[index])) {
            heap.push(index, precedes: precedes)
        }
        if head(runs.count, position < order.count ? Optional(keys[order[position]]) : nil) {
            heap.push(runs.count, precedes: precedes)
        }
        while let top = heap.first {
            let more: Bool
            if top < runs.count {
                try body(lines[top])
                more = head(top, try Self.next(of: runs[top], line: &lines[top]))
            } else {
                guard let arena else { break }
                try body(arena.bytes(at: spans[order[position]]))
                position += 1
                more = head(top, position < order.count ? Optional(keys[order[position]]) : nil)
            }
            heap.firstMovedOn(usedUp: !more, precedes: precedes)
        }
    }

    /// The key of `run`'s next entry, and in `line` where its line lies; `nil` at the run's end.
    private static func next(of run: RunReader, line: inout UnsafeRawBufferPointer) throws(SpillError) -> Value? {
        guard let entry = try run.nextEntry() else { return nil }
        var reader = SpillReader(entry)
        let key = try reader.value()
        line = try reader.blockInPlace()
        return key
    }

    /// Whether source `a`'s head goes out before source `b`'s: by key, ties to the earlier run.
    private static func precedes(_ heads: [Value?], _ a: Int, _ b: Int, descending: Bool) -> Bool {
        guard let x = heads[a], let y = heads[b] else { return heads[a] != nil }
        return ValueOrder.precedes(x, y, descending: descending) ?? (a < b)
    }
}
