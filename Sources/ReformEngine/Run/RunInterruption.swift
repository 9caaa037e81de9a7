import Synchronization

/// A run asked to stop by a signal (Ctrl-C, SIGTERM). The command line records the signal here;
/// the runner and live sources check it, cancel their requests and unwind, so outputs are
/// abandoned (never half-written) and the dead-letter file keeps what it has.
public enum RunInterruption {
    private static let received = Atomic<Int32>(0)

    /// The signal that asked the run to stop, if any.
    public static var signal: Int32? {
        let value = received.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    /// Asks the running run to stop because of `signal`.
    public static func request(_ signal: Int32) {
        received.store(signal, ordering: .relaxed)
    }
}
