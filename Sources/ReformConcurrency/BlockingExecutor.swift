import ReformSystem

/// A thread of its own that runs the jobs of tasks preferring it (``task(_:)``), and on which
/// blocking is allowed: the built-in HTTP client does its exchanges right there, waiting on the
/// socket with a deadline, instead of handing each one to a connection thread and back.
///
/// Why: on a small machine every hand-over between threads is a wake-up that costs tens of
/// microseconds, and a paged fetch that hops pool → connection → pool → consumer per page spends
/// more time waking threads than the server spends answering (docs/speed.md, "HTTP"). A live source
/// fetches its pages on one of these, ahead of the run loop.
package final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor the current task was started on by ``task(_:)``; tasks that start tasks of
    /// their own (an ``APIManager``'s flights) pass it on as their executor preference.
    @TaskLocal package static var current: BlockingExecutor?

    /// Whether the calling thread is one of these executors' threads, where blocking is allowed.
    package static var isCurrentThread: Bool { pthread_getspecific(threadMarker) != nil }

    private static let threadMarker: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var jobs: [UnownedJob] = []
    /// Guarded by `lock`: set by ``stop()``; the thread ends once no job is left.
    private var stopping = false
    /// Guarded by `lock`: the thread has ended; late jobs run on threads of their own.
    private var ended = false

    /// An executor whose thread starts at once. If no thread can be started, every job runs the
    /// way late jobs do (and blocking exchanges go to connection threads).
    package init() {
        // The thread holds the executor until its loop ends.
        let started = OwnThread.tryStart { [self] in loop() }
        if !started { lock.withLock { ended = true } }
    }

    /// Starts `operation` as a task running on this executor's thread, with ``current`` set.
    package func task<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success) -> Task<Success, Never> {
        BlockingExecutor.$current.withValue(self) {
            Task(executorPreference: self) { await operation() }
        }
    }

    /// Queues `job` for the thread.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let late = lock.withLock {
            if !ended {
                jobs.append(job)
                lock.signal()
            }
            return ended
        }
        if late {
            // The thread has ended (its tasks were done); a job resumed after that still runs.
            let executor = asUnownedTaskExecutor()
            OwnThread.start { job.runSynchronously(on: executor) }
        }
    }

    /// Ends the thread once the jobs queued so far have run.
    package func stop() {
        lock.withLock {
            stopping = true
            lock.signal()
        }
    }

    private func loop() {
        pthread_setspecific(BlockingExecutor.threadMarker, Unmanaged.passUnretained(self).toOpaque())
        let executor = asUnownedTaskExecutor()
        while true {
            let batch = lock.withLock {
                while jobs.isEmpty && !stopping { lock.wait() }
                if jobs.isEmpty { ended = true }
                defer { jobs.removeAll(keepingCapacity: true) }
                return jobs
            }
            guard !batch.isEmpty else { return }
            for job in batch { job.runSynchronously(on: executor) }
        }
    }
}
