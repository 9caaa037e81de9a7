import ReformSystem

/// A value reached only under a lock: the `withLock` of `Synchronization.Mutex`, on a pthread
/// mutex.
///
/// Not `Mutex`, because on Linux it locks with atomics and futex calls from a library built
/// without ThreadSanitizer's instrumentation: TSan sees no order between two critical sections and
/// reports the accesses inside them as races (it did, for the work queue and for the registry of
/// unfinished output files). TSan knows pthread mutexes.
package final class Guarded<Value>: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Reached only while `lock` is held.
    private var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
