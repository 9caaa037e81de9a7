/// At most `limit` holders at once; the others wait in line, without holding a thread.
///
/// A service's `connections:` bounds the requests in flight to it across all its managers and
/// partitions with one of these.
package final class ConnectionLimit: Sendable {
    private struct State {
        var inUse = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    /// How many may hold it at once.
    package let limit: Int
    private let state = Guarded(State())

    /// A limit of `limit` holders (at least one).
    package init(limit: Int) {
        self.limit = Swift.max(1, limit)
    }

    /// Waits for a place, takes it, runs `body`, and gives the place to the next in line.
    package func withPlace<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> Result {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        let granted = state.withLock { state -> Bool in
            guard state.inUse < limit else { return false }
            state.inUse += 1
            return true
        }
        if granted { return }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                // A place may have come free in between: take it at once.
                guard state.inUse < limit else {
                    state.waiting.append(continuation)
                    return false
                }
                state.inUse += 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            // The place passes straight to the next in line (inUse stays the same).
            guard !state.waiting.isEmpty else {
                state.inUse -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
