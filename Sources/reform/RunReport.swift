import ReformEngine
import ReformSDK

/// What `reform run` says on standard error besides its log: warnings, what each API manager
/// did, the summary, the final error. As text lines, or with `--log-format json` as JSON log
/// lines like the log's own (``StandardErrorLogHandler``), so that every stderr line of a run
/// parses: the summary at level `info` with its counts as numbers, warnings at `warning`, the
/// error at `error` with its `code`.
struct RunReport {
    /// Whether lines are JSON.
    let json: Bool

    /// A warning (`reform: warning: …` as text).
    func warning(_ text: String) {
        if json {
            Terminal.write(StandardErrorLogHandler.jsonLine(level: "warning", message: text))
        } else {
            Terminal.error("reform: warning: " + text)
        }
    }

    /// Something the run did that changes what is there beyond its records (a column
    /// `schema: evolve` added to a table).
    func notice(_ text: String) {
        if json {
            Terminal.write(StandardErrorLogHandler.jsonLine(level: "info", message: text))
        } else {
            Terminal.error("reform: " + text)
        }
    }

    /// A pipeline's warning, already worded with its file and line.
    func pipelineWarning(_ text: String) {
        if json { Terminal.write(StandardErrorLogHandler.jsonLine(level: "warning", message: text)) } else { Terminal.error(text) }
    }

    /// The failure that ends the run; `code` names its kind (`invalid-pipeline`, a ``RunError`` code).
    func error(_ text: String, code: String, prefixed: Bool = true) {
        if json {
            Terminal.write(StandardErrorLogHandler.jsonLine(level: "error", message: text, fields: ["code": .string(code)]))
        } else {
            Terminal.error(prefixed ? "reform: error: " + text : text)
        }
    }

    /// A run stopped by a signal: what was kept.
    func interrupted(_ text: String, signal: Int32) {
        if json {
            Terminal.write(
                StandardErrorLogHandler.jsonLine(
                    level: "error", message: "interrupted: " + text, fields: ["code": .string("interrupted"), "signal": .int(Int(signal))]))
        } else {
            Terminal.error("reform: interrupted: " + text)
        }
    }

    /// What one manager did against its API.
    func paging(_ report: PagingReport) {
        guard json else { return Terminal.error("reform: " + report.description) }
        var stopped = Object()
        for (reason, count) in report.stopped { stopped.appendNew(key: reason, value: .int(count)) }
        Terminal.write(
            StandardErrorLogHandler.jsonLine(
                level: "info", message: report.description,
                fields: [
                    "manager": .string(report.manager), "partitions": .int(report.partitions), "pages": .int(report.pages),
                    "requests": .int(report.requests), "records": .int(report.records), "stopped": .object(stopped),
                ]))
    }

    /// The run's summary line.
    func summary(_ summary: RunSummary) {
        guard json else { return Terminal.error(summary.description) }
        var fields: [String: Value] = [
            "in": .int(summary.recordsIn), "out": .int(summary.written.reduce(0) { $0 + $1.count }), "rejected": .int(summary.rejected),
        ]
        if let path = summary.deadLetterPath, summary.rejected > 0 { fields["dead_letter"] = .string(path) }
        let discarded = summary.discardedValues.reduce(0) { $0 + $1.count }
        if discarded > 0 { fields["discarded_values"] = .int(discarded) }
        if !summary.childRows.isEmpty {
            var children = Object()
            for (table, count) in summary.childRows { children.appendNew(key: table, value: .int(count)) }
            fields["child_rows"] = .object(children)
        }
        let line = summary.description
        let message = line.hasPrefix("reform: ") ? String(line.dropFirst("reform: ".count)) : line
        Terminal.write(StandardErrorLogHandler.jsonLine(level: "info", message: message, fields: fields))
    }
}
