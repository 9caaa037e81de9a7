/// What a finished run did: counts in, out and rejected, and where the rejects went.
public struct RunSummary: Sendable, CustomStringConvertible {
    /// Records landed per manager, in run order.
    public var landed: [(manager: String, count: Int)] = []
    /// Records written per output (its path, or `-` for standard output).
    public var written: [(output: String, count: Int)] = []
    /// Records rejected (bad input, or rejected by a reformer) and written to the dead-letter file.
    public var rejected = 0
    /// The dead-letter file, when anything was rejected.
    public var deadLetterPath: String?
    /// Records the batch fast path copied straight from input to output (included in the counts).
    public var writtenDirectly = 0
    /// Managers of the run that landed nothing because the run read `--input` files (batch mode)
    /// and none was given for them.
    public var skipped: [String] = []

    /// Counts and timings, when ``RunOptions/collectsStats`` asked for them.
    public var stats: RunStats?
    /// Exchanges recorded per fixtures folder (`--record`).
    public var recorded: [(folder: String, count: Int)] = []

    /// Requests answered by replayed fixtures, in the order sent (all managers).
    public var requests: [AnsweredRequest] = []
    /// Why each replayed manager stopped paging (`short page (2 < 3)`), in run order.
    public var stopped: [(manager: String, reason: StopReason)] = []

    /// Records landed in all.
    public var recordsIn: Int { landed.reduce(0) { $0 + $1.count } }

    /// `reform: 300000 in, 299998 out, 2 rejected → reform-dead-letter.ndjson`.
    public var description: String {
        let out: String
        if written.count == 1 {
            out = "\(written[0].count) out"
        } else {
            out = "out " + written.map { "\($0.count) to \($0.output == "-" ? "stdout" : $0.output)" }.joined(separator: ", ")
        }
        var line = "reform: \(recordsIn) in, \(out), \(rejected) rejected"
        if rejected > 0, let deadLetterPath { line += " → \(deadLetterPath)" }
        if !skipped.isEmpty { line += " (batch mode: no --input for \(skipped.joined(separator: ", ")), skipped)" }
        for (folder, count) in recorded { line += "; recorded \(count) exchange\(count == 1 ? "" : "s") to \(folder)" }
        return line
    }
}
