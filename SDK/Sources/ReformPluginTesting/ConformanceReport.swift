/// What a conformance check found: every failure as a readable sentence, and how much it exercised.
public struct ConformanceReport: Sendable, CustomStringConvertible {
    /// Each broken rule, with the input that broke it; empty when the reformer conforms.
    public internal(set) var failures: [String] = []
    /// How many records were fed to the reformer in all.
    public internal(set) var recordsChecked = 0
    /// Whether several threads were checked (only for reformers that are `Sendable`).
    public internal(set) var checkedThreads = false

    /// Whether every rule held.
    public var passed: Bool { failures.isEmpty }

    /// `conforms (N records…)` or one failure per line.
    public var description: String {
        let summary = "\(recordsChecked) records" + (checkedThreads ? ", several threads" : "")
        if failures.isEmpty { return "conforms (\(summary))" }
        return "\(failures.count) conformance failure(s) (\(summary)):\n" + failures.map { "- " + $0 }.joined(separator: "\n")
    }

    mutating func fail(_ message: String) {
        // One broken rule often fails on many inputs; keep the report readable.
        if failures.count < 50 { failures.append(message) }
    }
}
