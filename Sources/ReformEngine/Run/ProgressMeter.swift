import ReformConcurrency

/// Counts one manager's landing and reports it through ``RunOptions/progress``, at most five
/// times a second (the clock is read once every 1,024 records, or after a chunk is read).
final class ProgressMeter {
    private let report: @Sendable (RunProgress) -> Void
    private let manager: String
    private let totalBytes: Int?
    private let start = MonotonicClock.now()
    private var lastReport = 0.0
    /// Records landed through the general path.
    var landed = 0
    /// Records a fast path handled, read when reporting.
    var handledElsewhere: () -> Int = { 0 }
    /// Bytes of the inputs already finished.
    var bytesOfFinishedInputs = 0
    private var bytesOfCurrentInput = 0

    init(manager: String, totalBytes: Int?, report: @escaping @Sendable (RunProgress) -> Void) {
        self.manager = manager
        self.totalBytes = totalBytes
        self.report = report
    }

    /// One more record landed.
    @inline(__always)
    func tick() {
        landed += 1
        if landed & 1023 == 0 { reportIfDue() }
    }

    /// The current input has been read up to `bytes`.
    func read(_ bytes: Int) {
        bytesOfCurrentInput = bytes
        reportIfDue()
    }

    /// The current input is done; the next starts at zero.
    func finishInput() {
        bytesOfFinishedInputs += bytesOfCurrentInput
        bytesOfCurrentInput = 0
    }

    /// The manager's last report.
    func finish() {
        report(progress(at: MonotonicClock.now(), finished: true))
    }

    private func reportIfDue() {
        let now = MonotonicClock.now()
        guard now - lastReport >= 0.2 else { return }
        lastReport = now
        report(progress(at: now, finished: false))
    }

    private func progress(at now: Double, finished: Bool) -> RunProgress {
        RunProgress(
            manager: manager, records: landed + handledElsewhere(), bytes: bytesOfFinishedInputs + bytesOfCurrentInput,
            totalBytes: totalBytes, seconds: now - start, finished: finished)
    }
}
