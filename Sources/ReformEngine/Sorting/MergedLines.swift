import ReformSDK

/// The lines of a ``LineSort`` that spilled, in order: its runs read back from the spill file,
/// merged with the lines it still holds, each line read where it lies (a run's read buffer, the
/// arena), not copied.
///
/// The order is ``SortedElements``' (``ValueOrder`` on the keys, ties to the earlier run, the
/// lines still held last), without its per-line costs: read as ``HeldLine``s, every line of a
/// spilled sort was an array of its own, made, copied once more to be written and freed; the
/// lines still held were copied into arrays before the merge began. A 2 GB sort spent a fifth
/// of its time there.
final class MergedLines {
    private let runs: [RunReader]
    /// Each run's next line, where it lies in its reader's buffer.
    private var lines: [UnsafeRawBufferPointer]
    private let descending: Bool
    /// The lines still held: their bytes, keys in the order they came, and the positions that
    /// sort them, of which `position` were read.
    private let arena: LineArena?
    private let keys: [Value]
    private let spans: [LineSpan]
    private let order: [Int]
    private var position = 0
    /// Each source's next line's key: runs by index, then the held lines; `nil` once used up.
    private var heads: [Value?] = []
    /// Indices into `heads`, the next out first.
    private var heap = MergeHeap()
    private var started = false
    /// Whether the line last returned is the heap's first source's: that source moves on at the
    /// next call, not before, since the line's bytes lie in its buffer until then.
    private var returned = false

    /// A merge of the `runs` of `file` with the lines held in `arena` at `spans`, sorted by `keys`
    /// in `order`; `budget` bytes are shared among the runs' read buffers.
    init(
        file: SpillFile, runs: [Range<Int>], arena: LineArena?, keys: [Value], spans: [LineSpan], order: [Int],
        descending: Bool, budget: Int
    ) {
        // Each run gets a share of the budget as its read buffer, within 4 KiB–1 MiB.
        let bufferSize = min(1 << 20, max(4 << 10, budget / max(1, runs.count)))
        self.runs = runs.map { RunReader(file: file, range: $0, bufferSize: bufferSize) }
        lines = runs.map { _ in UnsafeRawBufferPointer(start: nil, count: 0) }
        self.arena = arena
        self.keys = keys
        self.spans = spans
        self.order = order
        self.descending = descending
    }

    /// The next line's bytes (valid until the next call), or `nil` after the last.
    func next() throws(SpillError) -> UnsafeRawBufferPointer? {
        if !started {
            started = true
            for index in runs.indices { heads.append(try nextKey(ofRun: index)) }
            heads.append(heldKey())
            for source in heads.indices where heads[source] != nil { heap.push(source, precedes: precedes) }
        } else if returned, let top = heap.first {
            if top < runs.count {
                heads[top] = try nextKey(ofRun: top)
            } else {
                position += 1
                heads[top] = heldKey()
            }
            heap.firstMovedOn(usedUp: heads[top] == nil, precedes: precedes)
        }
        guard let top = heap.first else { return nil }
        returned = true
        if top < runs.count { return lines[top] }
        guard let arena else { return nil }
        return arena.bytes(at: spans[order[position]])
    }

    /// The key of the next line still held, or `nil` after the last (spelled out: `Value` takes
    /// `nil` as its null, which a ternary would make it).
    private func heldKey() -> Value? {
        guard position < order.count else { return nil }
        return keys[order[position]]
    }

    /// Reads run `index`'s next entry: its key, and where its line lies (``lines``).
    private func nextKey(ofRun index: Int) throws(SpillError) -> Value? {
        guard let entry = try runs[index].nextEntry() else { return nil }
        var reader = SpillReader(entry)
        let key = try reader.value()
        lines[index] = try reader.blockInPlace()
        return key
    }

    /// Whether source `a`'s head goes out before source `b`'s: by key, ties to the earlier run.
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        guard let x = heads[a], let y = heads[b] else { return heads[a] != nil }
        return ValueOrder.precedes(x, y, descending: descending) ?? (a < b)
    }
}
