import ReformSDK

/// The elements of an ``ExternalSort`` in order, read one at a time: straight from memory when
/// nothing was spilled, else merged from the spilled runs and the last run still in memory.
///
/// A class, so that the reformer or row list holding it can be copied while it is read.
final class SortedElements<Element: Spillable> {
    /// One element with the key it sorts by.
    typealias Entry = ExternalSort<Element>.Entry

    /// The last run, in memory, in the order it came, the positions that sort it, and how many
    /// of those were read.
    private var last: [Entry]
    private var order: [Int]
    private var lastPosition = 0
    private let file: SpillFile?
    private var readers: [RunReader] = []
    private let descending: Bool
    private let context: Element.SpillContext?
    /// Each source's next entry: readers by index, then the last run; `nil` once it is used up.
    private var heads: [Entry?] = []
    /// Indices into `heads`, the next out first.
    private var heap = MergeHeap()
    private var started = false

    init(inMemory entries: [Entry], order: [Int]) {
        last = entries
        self.order = order
        file = nil
        descending = false
        context = nil
    }

    init(
        file: SpillFile, runs: [Range<Int>], last: [Entry], order: [Int], descending: Bool, context: Element.SpillContext, budget: Int
    ) {
        self.last = last
        self.order = order
        self.file = file
        self.descending = descending
        self.context = context
        // Each run gets a share of the budget as its read buffer, within 4 KiB–1 MiB.
        let bufferSize = min(1 << 20, max(4 << 10, budget / max(1, runs.count)))
        readers = runs.map { RunReader(file: file, range: $0, bufferSize: bufferSize) }
    }

    /// The next element in order, or `nil` after the last.
    func next() throws(SpillError) -> Element? {
        guard file != nil, let context else {
            guard lastPosition < order.count else {
                last = []
                order = []
                return nil
            }
            defer { lastPosition += 1 }
            return last[order[lastPosition]].element
        }
        if !started {
            started = true
            for i in readers.indices { heads.append(try readers[i].next(context: context)) }
            heads.append(nextOfLast())
            for i in heads.indices where heads[i] != nil { heap.push(i, precedes: precedes) }
        }
        guard let top = heap.first, let entry = heads[top] else { return nil }
        heads[top] = top < readers.count ? try readers[top].next(context: context) : nextOfLast()
        heap.firstMovedOn(usedUp: heads[top] == nil, precedes: precedes)
        return entry.element
    }

    private func nextOfLast() -> Entry? {
        guard lastPosition < order.count else { return nil }
        defer { lastPosition += 1 }
        return last[order[lastPosition]]
    }

    /// Whether source `a`'s head goes out before source `b`'s: by key, ties to the earlier run.
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        guard let x = heads[a], let y = heads[b] else { return heads[a] != nil }
        return ValueOrder.precedes(x.key, y.key, descending: descending) ?? (a < b)
    }
}
