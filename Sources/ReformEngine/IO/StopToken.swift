import Synchronization

/// Asks a run to stop: the run's readers, page feeds and landing loop check it, cancel what is in
/// flight and unwind, so outputs are abandoned (never half-written) and the dead-letter file keeps
/// what it has. The run then fails with ``RunError/Code/interrupted``.
///
/// Each run reads the token of its ``RunOptions/stop``. By default that is ``process``, which the
/// command line's Ctrl-C and SIGTERM handlers trip (``RunInterruption``). A program that runs
/// several pipelines at once gives each run a token of its own, made to follow ``process`` so a
/// signal still stops them all:
///
/// ```swift
/// let stop = StopToken()
/// var options = RunOptions()
/// options.stop = stop
/// // elsewhere, to cancel this run alone:
/// stop.cancel()
/// ```
///
/// Cancelling the task that awaits the async `Runner.run()` trips a token of the run's own.
public final class StopToken: Sendable {
    /// The process's token: the command line's signal handlers trip it, and every run follows it.
    public static let process = StopToken(following: nil)

    /// 0 until asked; then the signal number, or -1 when cancelled without one.
    private let received = Atomic<Int32>(0)
    private let parent: StopToken?

    /// A token of its own that also reports `parent`'s request (by default the process's).
    public init(following parent: StopToken? = .process) {
        self.parent = parent
    }

    /// What was asked, this token's own request first.
    private var value: Int32 {
        let own = received.load(ordering: .relaxed)
        return own != 0 ? own : parent?.value ?? 0
    }

    /// The signal number the stop was asked with, if it was asked by a signal.
    public var signal: Int32? {
        let value = value
        return value > 0 ? value : nil
    }

    /// Whether the run was asked to stop.
    public var isRequested: Bool { value != 0 }

    /// Why the run stops, for its error (`interrupted by signal 2`, `cancelled`); `nil` while it was not asked to.
    public var reason: String? {
        let value = value
        if value == 0 { return nil }
        return value > 0 ? "interrupted by signal \(value)" : "cancelled"
    }

    /// Asks the runs that read this token to stop because of `signal` (the command line exits
    /// with 128 + it).
    public func request(_ signal: Int32) {
        received.store(signal > 0 ? signal : -1, ordering: .relaxed)
    }

    /// Asks the runs that read this token to stop, without a signal.
    public func cancel() {
        received.store(-1, ordering: .relaxed)
    }
}
