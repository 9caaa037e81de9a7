/// A run asked to stop by a signal (Ctrl-C, SIGTERM). The command line records the signal here;
/// every run whose ``RunOptions/stop`` follows the process's token (the default) checks it,
/// cancels its requests and unwinds, so outputs are abandoned (never half-written) and the
/// dead-letter file keeps what it has.
///
/// It is ``StopToken/process`` under its older name; a program running several pipelines gives
/// each its own ``StopToken``.
public enum RunInterruption {
    /// The signal that asked the runs to stop, if any.
    public static var signal: Int32? { StopToken.process.signal }

    /// Asks every run following the process's token to stop because of `signal`.
    public static func request(_ signal: Int32) {
        StopToken.process.request(signal)
    }
}
