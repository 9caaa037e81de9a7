/// Starting a detached POSIX thread (`pthread_t` and the start routine's argument have different
/// types in each C library).
public enum DetachedThread {
    /// The closure a started thread runs, passed to it through `pthread_create`'s argument.
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread and returns `true`; `false` (and `body` not run) when
    /// no thread can be started.
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let started = pthread_create(&thread, nil, { DetachedThread.run($0) }, work)
        guard started == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            return false
        }
        #if canImport(Glibc)
        pthread_detach(thread)
        #else
        if let thread { pthread_detach(thread) }
        #endif
        return true
    }

    /// The start routine where its argument is optional (glibc, musl).
    private static func run(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        if let argument { Unmanaged<Work>.fromOpaque(argument).takeRetainedValue().body() }
        return nil
    }

    /// The start routine where its argument is not (Darwin).
    private static func run(_ argument: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        Unmanaged<Work>.fromOpaque(argument).takeRetainedValue().body()
        return nil
    }
}
