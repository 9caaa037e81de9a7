import ReformSystem

/// A pthread mutex with a condition variable: for threads that wait for each other by design (a
/// work queue, a connection's thread, a page feed), where `Guarded` alone cannot wait.
///
/// pthread rather than `Synchronization.Mutex`: ThreadSanitizer understands pthread locks (it
/// cannot see the futex calls `Mutex` makes on Linux, and reported their sections as races).
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// An unlocked lock.
    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock; `body` may ``wait()``.
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Releases the lock until another thread signals, then holds it again (call inside
    /// ``withLock(_:)``, in a loop that checks what it waits for).
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Like ``wait()``, for at most `milliseconds`.
    package func wait(milliseconds: Int) {
        var until = timespec()
        clock_gettime(CLOCK_REALTIME, &until)
        until.tv_sec += milliseconds / 1000
        until.tv_nsec += (milliseconds % 1000) * 1_000_000
        if until.tv_nsec >= 1_000_000_000 {
            until.tv_sec += 1
            until.tv_nsec -= 1_000_000_000
        }
        pthread_cond_timedwait(condition, mutex, &until)
    }

    /// Wakes one waiting thread.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiting thread.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
