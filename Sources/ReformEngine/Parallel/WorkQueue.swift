#if canImport(Glibc)
import Glibc
#endif

/// Batches waiting for a worker: any free worker takes the oldest, so one slow batch does not
/// leave the others idle. ``close(workers:)`` ends every worker's loop.
///
/// A pthread mutex and condition variable rather than `Synchronization.Mutex` and a semaphore:
/// workers block here by design, and ThreadSanitizer understands pthread locks (it cannot see the
/// futex calls `Mutex` makes on Linux, and reported the queue's accesses as races).
final class WorkQueue: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let ready = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Guarded by `lock`; `nil` entries tell one worker each to stop.
    private var items: [Batch?] = []

    /// An empty queue.
    init() {
        pthread_mutex_init(lock, nil)
        pthread_cond_init(ready, nil)
    }

    deinit {
        pthread_cond_destroy(ready)
        pthread_mutex_destroy(lock)
        ready.deallocate()
        lock.deallocate()
    }

    /// Adds a batch for the next free worker.
    func push(_ batch: Batch) {
        append(batch)
    }

    /// The oldest waiting batch, waiting for one; `nil` once closed.
    func pop() -> Batch? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while items.isEmpty { pthread_cond_wait(ready, lock) }
        return items.removeFirst()
    }

    /// Tells `workers` workers to stop once the batches before are taken.
    func close(workers: Int) {
        for _ in 0..<workers { append(nil) }
    }

    private func append(_ item: Batch?) {
        pthread_mutex_lock(lock)
        items.append(item)
        pthread_cond_signal(ready)
        pthread_mutex_unlock(lock)
    }
}
