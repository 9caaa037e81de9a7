import ReformConcurrency
public import ReformEngine

extension ScriptedTransport {
    /// A point where the requests a ``ScriptedTransport`` holds wait until ``release()``: a
    /// response in flight for as long as a test needs, without a slow server or a sleep. A held
    /// request whose task is cancelled (a takeoff policy, the caller, a released manager) ends
    /// at once with a `cancelled` ``ReformEngine/TransportError``, and is counted.
    ///
    /// ```swift
    /// let hold = transport.hold("/slow")
    /// let first = Task { try await manager.load() }
    /// await hold.waitForRequests(1)     // the first request is in flight
    /// ...
    /// hold.release()                    // it (and every later one) is answered
    /// ```
    public final class Hold: Sendable {
        private struct State {
            var arrived = 0
            var cancelled = 0
            var released = false
            var nextID = 0
            var cancelledIDs: Set<Int> = []
            var held: [Int: CheckedContinuation<Bool, Never>] = [:]
            var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }

        let method: String
        let path: String
        private let state = Guarded(State())

        init(method: String, path: String) {
            self.method = method
            self.path = path
        }

        /// How many requests reached it so far (held, released or cancelled).
        public var arrived: Int { state.withLock { $0.arrived } }

        /// How many held requests were cancelled before the release.
        public var cancelled: Int { state.withLock { $0.cancelled } }

        /// Returns once `count` requests have reached it.
        public func waitForRequests(_ count: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let reached = state.withLock { state in
                    if state.arrived >= count { return true }
                    state.watchers.append((count, continuation))
                    return false
                }
                if reached { continuation.resume() }
            }
        }

        /// Lets every held request, and every later one, go on to its scripted answer.
        public func release() {
            let held = state.withLock { state in
                state.released = true
                defer { state.held = [:] }
                return Array(state.held.values)
            }
            for continuation in held { continuation.resume(returning: true) }
        }

        /// Waits for the release; `false` when the task was cancelled first.
        func pass() async -> Bool {
            let id = state.withLock { state in
                state.nextID += 1
                return state.nextID
            }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let (now, watchers) = state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                        state.arrived += 1
                        let due = state.watchers.filter { $0.count <= state.arrived }.map(\.continuation)
                        state.watchers.removeAll { $0.count <= state.arrived }
                        if state.released { return (true, due) }
                        if state.cancelledIDs.contains(id) {
                            state.cancelled += 1
                            return (false, due)
                        }
                        state.held[id] = continuation
                        return (nil, due)
                    }
                    for watcher in watchers { watcher.resume() }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    state.cancelledIDs.insert(id)
                    guard let continuation = state.held.removeValue(forKey: id) else { return nil }
                    state.cancelled += 1
                    return continuation
                }
                continuation?.resume(returning: false)
            }
        }
    }
}
