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
    /// Indices into `heads` ordered as a binary heap, smallest (next out) first.
    private var heap: [Int] = []
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
            for i in heads.indices where heads[i] != nil { push(i) }
        }
        guard let top = heap.first, let entry = heads[top] else { return nil }
        heads[top] = top < readers.count ? try readers[top].next(context: context) : nextOfLast()
        if heads[top] == nil {
            let moved = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = moved
                siftDown(0)
            }
        } else {
            siftDown(0)
        }
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

    private func push(_ source: Int) {
        heap.append(source)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, precedes(heap[left], heap[first]) { first = left }
            if right < heap.count, precedes(heap[right], heap[first]) { first = right }
            if first == parent { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}

/// Reads one spilled run back, entry by entry, through a buffer of its own.
private struct RunReader {
    let file: SpillFile
    /// The part of the file not read into the buffer yet.
    var remaining: Range<Int>
    var buffer: [UInt8]
    /// The unread bytes in `buffer`.
    var window = 0..<0

    init(file: SpillFile, range: Range<Int>, bufferSize: Int) {
        self.file = file
        remaining = range
        buffer = [UInt8](repeating: 0, count: bufferSize)
    }

    /// The run's next entry, or `nil` at its end.
    mutating func next<Element: Spillable>(context: Element.SpillContext) throws(SpillError) -> (key: Value, element: Element)? {
        guard let length = try length() else { return nil }
        try fill(length)
        var reader = SpillReader(buffer, range: window.lowerBound..<window.lowerBound + length)
        let entry = (key: try reader.value(), element: try Element(unspilling: &reader, context: context))
        window = window.lowerBound + length..<window.upperBound
        return entry
    }

    /// Reads the entry's length prefix, or `nil` at the end of the run.
    private mutating func length() throws(SpillError) -> Int? {
        if window.isEmpty && remaining.isEmpty { return nil }
        try fill(min(10, window.count + remaining.count))
        var value = 0
        var shift = 0
        var position = window.lowerBound
        while position < window.upperBound {
            let byte = buffer[position]
            position += 1
            value |= Int(byte & 0x7F) << shift
            if byte < 0x80 {
                window = position..<window.upperBound
                return value
            }
            shift += 7
        }
        throw SpillError(message: "a sort's temporary file ended in the middle of a record")
    }

    /// Makes sure the window holds at least `count` bytes (fewer only at the end of the run).
    private mutating func fill(_ count: Int) throws(SpillError) {
        guard window.count < count else { return }
        let kept = window.count
        if kept > 0 { buffer.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[window])) } }
        if buffer.count < count { buffer += [UInt8](repeating: 0, count: count - buffer.count) }
        var filled = kept
        while filled < buffer.count, !remaining.isEmpty {
            let got = try file.read(
                at: remaining.lowerBound, count: min(buffer.count - filled, remaining.count), into: &buffer, from: filled)
            guard got > 0 else { break }
            remaining = remaining.lowerBound + got..<remaining.upperBound
            filled += got
        }
        window = 0..<filled
        guard filled >= count else {
            throw SpillError(message: "a sort's temporary file ended in the middle of a record")
        }
    }
}
