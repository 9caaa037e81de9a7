import ReformSystem

/// Starts work on a new thread of its own, outside Swift concurrency's pool and Dispatch's.
///
/// For synchronous work that blocks while tasks do its I/O (a connection of the built-in HTTP client, a blocking executor):
/// on a pool thread it would hold one of the pool's few threads (as many as cores) that those
/// tasks need, and enough such waits at once leave none.
package enum OwnThread {
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread; on the calling thread if no thread can be started.
    package static func start(_ body: @escaping @Sendable () -> Void) {
        if !tryStart(body) { body() }
    }

    /// Runs `body` on a new detached thread and returns `true`; `false` (and `body` not run)
    /// when no thread can be started.
    package static func tryStart(_ body: @escaping @Sendable () -> Void) -> Bool {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                Unmanaged<Work>.fromOpaque(argument).takeRetainedValue().body()
                return nil
            }, work)
        guard started == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
