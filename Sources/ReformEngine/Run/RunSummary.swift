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
    /// Where the dead-letter file an earlier run left at the same path was moved (`PATH.1`),
    /// when there was one: a run never deletes an earlier run's rejected records.
    public var earlierDeadLetter: String?
    /// Records the batch fast path copied straight from input to output (included in the counts).
    public var writtenDirectly = 0
    /// Managers of the run that landed nothing because the run read `--input` files (batch mode)
    /// and none was given for them.
    public var skipped: [String] = []
    /// Managers that do not fan out, left to shard 0 (`--shard I/N` with I > 0).
    public var otherShard: [String] = []

    /// Counts and timings, when ``RunOptions/collectsStats`` asked for them.
    public var stats: RunStats?
    /// Exchanges recorded per fixtures folder (`--record`).
    public var recorded: [(folder: String, count: Int)] = []

    /// Requests answered by replayed fixtures, in the order sent (all managers).
    public var requests: [AnsweredRequest] = []
    /// Why each replayed manager stopped paging (`short page (2 < 3)`), in run order.
    public var stopped: [(manager: String, reason: StopReason)] = []

    /// Partitions run per fan-out manager (`for_each`), in run order.
    public var partitions: [(manager: String, count: Int)] = []
    /// Partitions skipped after a failure (`on_error: skip`): manager, partition, why.
    public var failedPartitions: [(manager: String, partition: String, reason: String)] = []

    /// What the run has to warn about (records without an incremental cursor).
    public var warnings: [String] = []
    /// Records an incremental manager landed again within its lookback window, unchanged since
    /// the last run: dropped, not written twice.
    public var alreadyLanded = 0
    /// What each manager that paged an API (live or replayed) did, in run order.
    public var paging: [PagingReport] = []

    /// What `schema: evolve` changed in the run's tables (`out/l.db#listings: added column kArea (REAL), schema: evolve`),
    /// each also logged in the table's `_reform_schema_log`.
    public var tableChanges: [String] = []
    /// Values `schema: discard_value` left out of loaded rows, per table output that left any out.
    public var discardedValues: [(output: String, count: Int)] = []
    /// The PostgreSQL databases whose loads were rolled back as asked (``RunOptions/rollsBackPostgres``).
    public var rolledBack: [String] = []
    /// Rows loaded into each child table (`child_tables:`), as `DATABASE#TABLE`.
    public var childRows: [(table: String, count: Int)] = []

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
        if !otherShard.isEmpty { line += " (\(otherShard.joined(separator: ", ")): shard 0's to land)" }
        for database in rolledBack { line += "; \(database): loaded and rolled back, nothing kept" }
        for (table, count) in childRows { line += "; \(count) row\(count == 1 ? "" : "s") to child table \(table)" }
        for (output, count) in discardedValues {
            line += "; \(count) value\(count == 1 ? "" : "s") left out of \(output) (schema: discard_value)"
        }
        if alreadyLanded > 0 { line += "; \(alreadyLanded) already landed by the last run (lookback), dropped" }
        for (manager, count) in partitions { line += "; \(manager): \(count) partition\(count == 1 ? "" : "s")" }
        if !failedPartitions.isEmpty {
            line +=
                "; \(failedPartitions.count) partition\(failedPartitions.count == 1 ? "" : "s") failed and skipped ("
                + failedPartitions.map { "\($0.manager)[\($0.partition)]" }.joined(separator: ", ") + ")"
        }
        if !skipped.isEmpty { line += " (batch mode: no --input for \(skipped.joined(separator: ", ")), skipped)" }
        for (folder, count) in recorded { line += "; recorded \(count) exchange\(count == 1 ? "" : "s") to \(folder)" }
        if let earlierDeadLetter { line += "; the earlier run's dead-letter file was moved to \(earlierDeadLetter)" }
        return line
    }
}

/// What one manager did against its API in a run: partitions, pages, requests, records, and why
/// its paging stopped (per reason, with how many partitions stopped for it).
public struct PagingReport: Sendable, CustomStringConvertible {
    /// The manager.
    public var manager: String
    /// Partitions run (`for_each`); 0 for a manager that does not fan out.
    public var partitions = 0
    /// Pages landed.
    public var pages = 0
    /// HTTP calls made (retries and token refreshes included) or exchanges replayed.
    public var requests = 0
    /// Records landed.
    public var records = 0
    /// Body bytes landed.
    public var bytes = 0
    /// Why paging stopped, with how many partitions stopped for that reason.
    public var stopped: [(reason: String, count: Int)] = []

    /// A report for `manager` with nothing counted yet.
    public init(manager: String) { self.manager = manager }

    mutating func stop(_ reason: StopReason?) {
        guard let reason else { return }
        let text = reason.description
        if let i = stopped.firstIndex(where: { $0.reason == text }) { stopped[i].count += 1 } else { stopped.append((text, 1)) }
    }

    /// `issues: 4 partitions, 12 pages, 12 requests, 48 records; stopped: no next link (4)`.
    public var description: String {
        var parts: [String] = []
        if partitions > 0 { parts.append("\(partitions) partition\(partitions == 1 ? "" : "s")") }
        parts.append("\(pages) page\(pages == 1 ? "" : "s")")
        parts.append("\(requests) request\(requests == 1 ? "" : "s")")
        parts.append("\(records) record\(records == 1 ? "" : "s")")
        var line = "\(manager): " + parts.joined(separator: ", ")
        if !stopped.isEmpty {
            line += "; stopped: " + stopped.map { $0.count > 1 ? "\($0.reason) (\($0.count))" : $0.reason }.joined(separator: ", ")
        }
        return line
    }
}
