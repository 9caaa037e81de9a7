import ReformEngine
import ReformSDK

/// The progress line on a terminal's standard error: one line, rewritten in place.
///
/// `reform: zufang 1,204,332 records · 96.1 MB of 812.0 MB · 402,110 records/s · ETA 0:17`
enum ProgressLine {
    @Sendable static func show(_ progress: RunProgress) {
        var line = "\r\u{1B}[Kreform: \(progress.manager) \(grouped(progress.records)) records"
        if progress.bytes > 0 {
            line += " · \(megabytes(progress.bytes))"
            if let total = progress.totalBytes { line += " of \(megabytes(total))" }
        }
        line += " · \(grouped(Int(progress.recordsPerSecond))) records/s"
        if !progress.finished, let left = progress.secondsLeft { line += " · ETA \(clock(left))" }
        Terminal.write(line)
    }

    /// Erases the line, so the summary starts on a clean one.
    static func clear() {
        Terminal.write("\r\u{1B}[K")
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
        let s = Int(seconds.rounded())
        let minutes = s / 60
        return minutes >= 60
            ? "\(minutes / 60):\(two(minutes % 60)):\(two(s % 60))" : "\(minutes):\(two(s % 60))"
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
