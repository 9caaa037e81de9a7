import ReformConcurrency
import ReformSystem

/// Batches waiting for a worker: any free worker takes the oldest, so one slow batch does not
/// leave the others idle. ``close(workers:)`` ends every worker's loop.
///
/// On a ``ConditionLock`` rather than `Synchronization.Mutex` and a semaphore: workers block here
/// by design, and ThreadSanitizer understands pthread locks (it cannot see the futex calls
/// `Mutex` makes on Linux, and reported the queue's accesses as races).
final class WorkQueue: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Guarded by `lock`; `nil` entries tell one worker each to stop.
    private var items: [Batch?] = []

    /// An empty queue.
    init() {}

    /// Adds a batch for the next free worker.
    func push(_ batch: Batch) {
        append(batch)
    }

    /// The oldest waiting batch, waiting for one; `nil` once closed.
    func pop() -> Batch? {
        lock.withLock {
            while items.isEmpty { lock.wait() }
            return items.removeFirst()
        }
    }

    /// Tells `workers` workers to stop once the batches before are taken.
    func close(workers: Int) {
        for _ in 0..<workers { append(nil) }
    }

    private func append(_ item: Batch?) {
        lock.withLock {
            items.append(item)
            lock.signal()
        }
    }
}
