import ReformSDK

/// Counts and timings of a run (`--stats json`): per manager, per reformer step of each output.
public struct RunStats: Sendable {
    /// One manager's landing.
    public struct Manager: Sendable {
        /// The manager.
        public var name: String
        /// Records landed.
        public var records: Int
        /// Input bytes read (compressed bytes for `.gz`); 0 for fixtures.
        public var bytes: Int
        /// Wall-clock seconds from its first record to its last, chains and writing included.
        public var seconds: Double
        /// What it did against its API, when it paged one (live or replayed).
        public var paging: PagingReport? = nil
    }

    /// One reformer step of one output's chain.
    public struct Step: Sendable {
        /// The output's position in the run.
        public var output: Int
        /// The reformer.
        public var reformer: String
        /// Records that reached it, went on from it, and that it rejected.
        public var recordsIn: Int, recordsOut: Int, rejected: Int
        /// Seconds spent inside the reformer (summed over workers).
        public var seconds: Double
        /// Whether it ran on the output's written lines rather than on records: a last reformer of
        /// only `sort`, `dedupe` and `limit` steps before an NDJSON file (`"on_lines": true`).
        public var onLines = false
    }

    /// How the run executed: which tier ran each part of each chain (``ExecutionPlan``).
    public var plan: ExecutionPlan?
    /// Managers in run order.
    public var managers: [Manager] = []
    /// Steps, by output, in chain order.
    public var steps: [Step] = []
    /// Records the batch fast path copied straight to the output (they pass no step).
    public var writtenDirectly = 0
    /// Workers used for the reform chain.
    public var jobs = 1
    /// Wall-clock seconds of the whole run.
    public var seconds = 0.0
    /// Records landed, written (all outputs) and rejected, as the summary line counts them.
    public var recordsIn = 0, recordsOut = 0, rejected = 0
    /// The process's peak resident memory when the run ended, in bytes (Linux's `VmHWM`; nil
    /// where it cannot be read).
    public var peakMemoryBytes: Int?

    /// The peak resident memory of this process so far, in bytes, from `/proc/self/status`.
    public static func currentPeakMemory() -> Int? {
        guard let status = try? FilePaths.readAll("/proc/self/status") else { return nil }
        let text = String(decoding: status, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
    }

    /// The stats as one compact JSON object (with a trailing newline).
    public var json: String {
        func rounded(_ s: Double) -> Value { .double((s * 1e6).rounded() / 1e6) }
        var root = Object()
        root.appendNew(key: "seconds", value: rounded(seconds))
        root.appendNew(key: "jobs", value: .int(jobs))
        root.appendNew(
            key: "managers",
            value: .array(
                managers.map { m in
                    var o = Object()
                    o.appendNew(key: "name", value: .string(m.name))
                    o.appendNew(key: "records", value: .int(m.records))
                    o.appendNew(key: "bytes", value: .int(m.bytes))
                    o.appendNew(key: "seconds", value: rounded(m.seconds))
                    o.appendNew(key: "records_per_second", value: .int(m.seconds > 0 ? Int(saturating: Double(m.records) / m.seconds) : 0))
                    if let paging = m.paging {
                        o.appendNew(key: "partitions", value: .int(paging.partitions))
                        o.appendNew(key: "pages", value: .int(paging.pages))
                        o.appendNew(key: "requests", value: .int(paging.requests))
                        var stopped = Object()
                        for (reason, count) in paging.stopped { stopped[reason] = .int(count) }
                        o.appendNew(key: "stopped", value: .object(stopped))
                    }
                    return .object(o)
                }))
        root.appendNew(
            key: "steps",
            value: .array(
                steps.map { s in
                    var o = Object()
                    o.appendNew(key: "output", value: .int(s.output))
                    o.appendNew(key: "reformer", value: .string(s.reformer))
                    o.appendNew(key: "in", value: .int(s.recordsIn))
                    o.appendNew(key: "out", value: .int(s.recordsOut))
                    o.appendNew(key: "rejected", value: .int(s.rejected))
                    o.appendNew(key: "seconds", value: rounded(s.seconds))
                    if s.onLines { o.appendNew(key: "on_lines", value: .bool(true)) }
                    return .object(o)
                }))
        root.appendNew(key: "written_directly", value: .int(writtenDirectly))
        root.appendNew(key: "in", value: .int(recordsIn))
        root.appendNew(key: "out", value: .int(recordsOut))
        root.appendNew(key: "rejected", value: .int(rejected))
        if let peakMemoryBytes { root.appendNew(key: "peak_rss_bytes", value: .int(peakMemoryBytes)) }
        if let plan { root.appendNew(key: "plan", value: plan.json) }
        var bytes: [UInt8] = []
        JSON.write(.object(root), into: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
