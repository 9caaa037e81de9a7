import ReformSystem

/// Starts work on a new thread of its own, outside Swift concurrency's pool and Dispatch's.
///
/// For synchronous work that blocks while tasks do its I/O (a connection of the built-in HTTP client, a blocking executor):
/// on a pool thread it would hold one of the pool's few threads (as many as cores) that those
/// tasks need, and enough such waits at once leave none.
package enum OwnThread {
    /// Runs `body` on a new detached thread; on the calling thread if no thread can be started.
    package static func start(_ body: @escaping @Sendable () -> Void) {
        if !tryStart(body) { body() }
    }

    /// Runs `body` on a new detached thread and returns `true`; `false` (and `body` not run)
    /// when no thread can be started.
    package static func tryStart(_ body: @escaping @Sendable () -> Void) -> Bool {
        DetachedThread.start(body)
    }
}
