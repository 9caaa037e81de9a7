import ReformEngine
import ReformSDK
import ReformSystem
import Synchronization

/// The progress line on a terminal's standard error: one line, rewritten in place.
///
/// `reform: zufang 1,204,332 records · 96.1 MB of 812.0 MB · 402,110 records/s · ETA 0:17`
enum ProgressLine {
    /// Whether a progress line is on the screen now (shown and not erased since).
    private static let shown = Atomic(false)

    @Sendable static func show(_ progress: RunProgress) {
        var line = "\r\u{1B}[Kreform: \(progress.manager) \(grouped(progress.records)) records"
        if progress.bytes > 0 {
            line += " · \(megabytes(progress.bytes))"
            if let total = progress.totalBytes { line += " of \(megabytes(total))" }
        }
        line += " · \(grouped(Int(saturating: progress.recordsPerSecond))) records/s"
        if !progress.finished, let left = progress.secondsLeft { line += " · ETA \(clock(left))" }
        Terminal.write(line)
        shown.store(true, ordering: .relaxed)
    }

    /// Erases the line, if one is shown, so that what comes next (the summary, or a table on
    /// standard output when both go to the terminal) starts on a clean one.
    @Sendable static func clear() {
        if shown.exchange(false, ordering: .relaxed) { Terminal.write("\r\u{1B}[K") }
    }

    /// The bytes that erase the line, made before any signal handler may need them.
    private static let erase = Array("\r\u{1B}[K".utf8)

    /// When a reader of standard output goes away (`| head` has its lines) the next write kills
    /// the process with SIGPIPE, mid-run: the handler erases a shown line first (`write(2)` and a
    /// lock-free load are safe in a handler), then dies of the signal as it would have.
    static func clearOnBrokenPipe() {
        _ = erase
        let handler: @convention(c) (Int32) -> Void = { number in
            if ProgressLine.shown.load(ordering: .relaxed) {
                _ = ProgressLine.erase.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
            }
            signal(number, SIG_DFL)
            raise(number)
        }
        var action = sigaction(handler: handler)
        sigaction(SIGPIPE, &action, nil)
    }

    private static let thousands = NumberPattern("#,##0").map(ValueFormat.number)

    private static func grouped(_ n: Int) -> String {
        (try? thousands?.apply(.int(n)))?.stringValue ?? String(n)
    }

    private static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + 500_000) / 1_000_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    private static func clock(_ seconds: Double) -> String {
        let s = Int(saturating: seconds.rounded())
        let minutes = s / 60
        return minutes >= 60
            ? "\(minutes / 60):\(two(minutes % 60)):\(two(s % 60))" : "\(minutes):\(two(s % 60))"
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
