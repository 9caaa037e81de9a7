import ReformConcurrency

/// Idle keep-alive connections of the built-in HTTP/1.1 client, per host and port, shared by
/// every manager of the process: the next page's request reuses the connection the last one
/// left. A connection idle longer than ``idleSeconds``, or that the server has closed, is closed
/// instead of reused.
package final class HTTP1Pool: Sendable {
    /// The pool of the process.
    package static let shared = HTTP1Pool()

    /// How long an idle connection is kept.
    package let idleSeconds: Double
    /// How many idle connections are kept per host and port; more are closed.
    package let idlePerOrigin: Int
    private let idle = Guarded<[HTTP1Target.Origin: [HTTP1Connection]]>([:])

    /// A pool keeping up to `idlePerOrigin` connections per origin for `idleSeconds` each.
    package init(idleSeconds: Double = 30, idlePerOrigin: Int = 16) {
        self.idleSeconds = idleSeconds
        self.idlePerOrigin = idlePerOrigin
    }

    /// The most recently used idle connection to `target`'s origin that can still be used, or a
    /// new one.
    package func connection(to target: HTTP1Target) -> HTTP1Connection {
        let oldest = Deadline.ago(seconds: idleSeconds)
        var unusable: [HTTP1Connection] = []
        defer { for connection in unusable { connection.close() } }
        return idle.withLock { idle in
            while let candidate = idle[target.originKey]?.popLast() {
                if candidate.idleSince.nanoseconds >= oldest.nanoseconds, candidate.isReusable { return candidate }
                unusable.append(candidate)
            }
            return HTTP1Connection(to: target)
        }
    }

    /// Takes `connection` back after a complete exchange that left it open; closes connections
    /// of any origin that have been idle too long, and the oldest beyond ``idlePerOrigin``.
    package func giveBack(_ connection: HTTP1Connection) {
        connection.idleSince = Deadline.after(seconds: 0)
        let oldest = Deadline.ago(seconds: idleSeconds)
        let surplus = idle.withLock { idle -> [HTTP1Connection] in
            var removed: [HTTP1Connection] = []
            for (origin, list) in idle where list.first.map({ $0.idleSince.nanoseconds < oldest.nanoseconds }) == true {
                removed += list.filter { $0.idleSince.nanoseconds < oldest.nanoseconds }
                idle[origin] = list.filter { $0.idleSince.nanoseconds >= oldest.nanoseconds }
            }
            var list = idle[connection.target.originKey, default: []]
            list.append(connection)
            let extra = max(0, list.count - idlePerOrigin)
            removed += list.prefix(extra)
            idle[connection.target.originKey] = Array(list.dropFirst(extra))
            return removed
        }
        for connection in surplus { connection.close() }
    }
}
