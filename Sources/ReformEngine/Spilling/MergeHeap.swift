/// The sources of a k-way merge ordered as a binary heap, the one whose head goes out next first:
/// what ``SortedElements`` and ``MergedLines`` share. `precedes(a, b)` says whether source `a`'s
/// head goes out before source `b`'s.
struct MergeHeap {
    private var sources: [Int] = []

    /// The source whose head goes out next, or `nil` when every source is used up.
    var first: Int? { sources.first }

    /// Adds a source that has a head.
    mutating func push(_ source: Int, precedes: (Int, Int) -> Bool) {
        sources.append(source)
        var child = sources.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(sources[child], sources[parent]) else { break }
            sources.swapAt(child, parent)
            child = parent
        }
    }

    /// Puts the first source back in its place after its head moved on, or takes it out when it
    /// has none left (`usedUp`).
    mutating func firstMovedOn(usedUp: Bool, precedes: (Int, Int) -> Bool) {
        if usedUp {
            let moved = sources.removeLast()
            guard !sources.isEmpty else { return }
            sources[0] = moved
        }
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < sources.count, precedes(sources[left], sources[first]) { first = left }
            if right < sources.count, precedes(sources[right], sources[first]) { first = right }
            if first == parent { return }
            sources.swapAt(parent, first)
            parent = first
        }
    }
}
