import Dispatch
import Synchronization

/// Batches waiting for a worker: any free worker takes the oldest, so one slow batch does not
/// leave the others idle. ``close()`` ends every worker's loop.
final class WorkQueue: Sendable {
    private let items = Mutex<[Batch?]>([])
    private let available = DispatchSemaphore(value: 0)

    /// Adds a batch for the next free worker.
    func push(_ batch: Batch) {
        items.withLock { $0.append(batch) }
        available.signal()
    }

    /// The oldest waiting batch, waiting for one; `nil` once closed.
    func pop() -> Batch? {
        available.wait()
        return items.withLock { $0.removeFirst() }
    }

    /// Tells `workers` workers to stop once the batches before are taken.
    func close(workers: Int) {
        for _ in 0..<workers { push(nil) }
    }

    private func push(_ end: Batch?) {
        items.withLock { $0.append(end) }
        available.signal()
    }
}
