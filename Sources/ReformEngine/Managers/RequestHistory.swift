import ReformConcurrency

/// The requests a paging run has sent, to catch an API whose paging loops: adding a request is
/// O(1), and copying the history (a page loader is copied for every flight) copies nothing.
///
/// A `Set` kept in the loader was copied whole on every page, because the manager's copy of the
/// loader still shared it when the flight's copy added the next request: quadratic in the pages
/// (a tenth of the CPU of a 3,000-page run). Here copies share one table in which each request
/// has its position; a copy sees only the positions below its own count, so a flight that is
/// cancelled or superseded leaves nothing the next one would mistake for a loop. A copy that adds
/// after another copy has added past it takes a table of its own (rare: parallel flights).
struct RequestHistory: Sendable {
    private final class Table: Sendable {
        /// Each request's position, and how many positions are taken.
        let entries: Guarded<(positions: [String: Int], count: Int)>

        init(positions: [String: Int], count: Int) {
            entries = Guarded((positions, count))
        }
    }

    private var table = Table(positions: [:], count: 0)
    /// How many of the table's requests belong to this copy.
    private var count = 0

    /// An empty history.
    init() {}

    /// Adds `key`; `false` when this history already holds it.
    mutating func insert(_ key: String) -> Bool {
        let mine = count
        let added = table.entries.withLock { entries -> Bool? in
            if let position = entries.positions[key], position < mine { return false }
            guard entries.count == mine else { return nil }
            entries.positions[key] = mine
            entries.count += 1
            return true
        }
        switch added {
        case true?:
            count += 1
            return true
        case false?:
            return false
        case nil:
            let kept = table.entries.withLock { $0.positions.filter { $0.value < mine } }
            table = Table(positions: kept, count: mine)
            return insert(key)
        }
    }
}
