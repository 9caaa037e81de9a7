import ReformSDK

/// A stable sort that keeps at most about `budget` bytes of elements in memory: past that, it
/// sorts what it holds and spills it as a run to a ``SpillFile``; ``sorted()`` then merges the runs.
///
/// The order is ``ValueOrder`` on each element's key, ties in the order elements came: exactly
/// what sorting everything in memory gives, whatever the budget (runs are consecutive stretches
/// of the input, each sorted stably, and the merge breaks ties by run).
struct ExternalSort<Element: Spillable> {
    /// One element with the key it sorts by.
    typealias Entry = (key: Value, element: Element)

    /// The default budget (``SortMemory/defaultBytes``), by ``Spillable/estimatedBytes``.
    static var defaultBudget: Int { SortMemory.defaultBytes }

    /// Bytes of elements held in memory before a run is spilled.
    let budget: Int
    /// Whether larger keys come first.
    let descending: Bool
    private let context: Element.SpillContext
    private var held: [Entry] = []
    private var heldBytes = 0
    private var file: SpillFile?
    private var runs: [Range<Int>] = []
    /// Elements appended so far.
    private(set) var count = 0

    /// An empty sort in `descending` (or ascending) order; `context` reads spilled elements back.
    init(budget: Int = ExternalSort.defaultBudget, descending: Bool, context: Element.SpillContext) {
        self.budget = max(1, budget)
        self.descending = descending
        self.context = context
    }

    /// How many runs went to the spill file so far.
    var spilledRuns: Int { runs.count }

    /// Adds `element`, which sorts by `key`; spills a run when the budget is full.
    mutating func append(_ element: Element, key: Value) throws(SpillError) {
        held.append((key, element))
        heldBytes += element.estimatedBytes + key.estimatedBytes
        count += 1
        if heldBytes > budget { try spill() }
    }

    /// The elements in order, read once; the sort is empty afterwards.
    mutating func sorted() -> SortedElements<Element> {
        let order = ExternalSort.order(of: held, descending: descending)
        let last = held
        held = []
        heldBytes = 0
        count = 0
        defer {
            file = nil
            runs = []
        }
        guard let file, !runs.isEmpty else { return SortedElements(inMemory: last, order: order) }
        return SortedElements(file: file, runs: runs, last: last, order: order, descending: descending, context: context, budget: budget)
    }

    private mutating func spill() throws(SpillError) {
        let order = ExternalSort.order(of: held, descending: descending)
        defer { held.removeAll(keepingCapacity: true) }
        heldBytes = 0
        if self.file == nil { self.file = try SpillFile() }
        guard let file else { return }
        runs.append(
            try file.appendRun(order) { position, entry in
                entry.value(held[position].key)
                held[position].element.spill(into: &entry)
            })
    }

    /// The positions of `entries` sorted by key (``ValueOrder``), ties in their order: read
    /// through, not copied into a sorted array (each entry retained and released once more; a
    /// tenth of a sort of 400,000 lines).
    static func order(of entries: [Entry], descending: Bool) -> [Int] {
        SortOrder.positions(of: entries.map(\.key), descending: descending)
    }
}
