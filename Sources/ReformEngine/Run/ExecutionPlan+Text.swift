public import ReformSDK

extension ExecutionPlan {
    /// The plan as `reform run --explain` prints it: the run's outputs, then each manager with
    /// its source and, per output, its chain's reformers grouped by the tier that runs them.
    public var text: String {
        var lines = ["run '\(run)'"]
        for (index, output) in outputs.enumerated() {
            let chain = output.reformers.isEmpty ? "no reformers" : output.reformers.joined(separator: " → ")
            let rows = output.rows.map { ", rows '\($0)'" } ?? ""
            lines.append("  output \(index + 1): \(output.name) (\(output.format)\(rows)): \(chain)")
        }
        for manager in managers {
            let jobs = manager.jobs > 1 ? ", on \(manager.jobs) workers" : ""
            lines.append("manager '\(manager.name)': \(manager.source)\(jobs)")
            if let oneThread = manager.oneThread { lines.append("  one thread: \(oneThread)") }
            if let fields = manager.fields { lines.append("  reads only: \(fields.isEmpty ? "no field" : fields.joined(separator: ", "))") }
            if manager.routes.isEmpty { lines.append("  to no output: its records make its children's partitions") }
            for route in manager.routes {
                let prefix = "  output \(route.output + 1): "
                let parts = route.segments.map(Self.words(for:)) + (route.rowsFromLine ? ["rows rendered from each line's bytes"] : [])
                lines.append(prefix + parts.joined(separator: "; then "))
            }
            if let why = manager.why { lines.append("  why not faster: \(why)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One segment in words: its reformers, where they run.
    private static func words(for segment: Segment) -> String {
        let names = segment.reformers.isEmpty ? "records as landed" : segment.reformers.map { "'\($0)'" }.joined(separator: ", ")
        let tier =
            switch segment.tier {
            case .copied: "copied from each line's bytes"
            case .compiled: "compiled, on each line's bytes"
            case .plugin: "a plugin's field reformer, on each line's bytes"
            case .table:
                "bound into the table from each line's bytes (when the table has the pipeline's columns: one a schema contract changed takes records)"
            case .records: "on records"
            case .lines: "on the written lines, held to the end"
            }
        return "\(names) \(tier)\(segment.onWorkers ? " (workers)" : "")"
    }

    /// The plan as a JSON object (`"plan"` in `--stats json`).
    public var json: Value {
        var root = Object()
        root.appendNew(key: "run", value: .string(run))
        root.appendNew(
            key: "outputs",
            value: .array(
                outputs.map { output in
                    var o = Object()
                    o.appendNew(key: "name", value: .string(output.name))
                    o.appendNew(key: "format", value: .string(output.format))
                    o.appendNew(key: "reformers", value: .array(output.reformers.map(Value.string)))
                    if let rows = output.rows { o.appendNew(key: "rows", value: .string(rows)) }
                    return .object(o)
                }))
        root.appendNew(
            key: "managers",
            value: .array(
                managers.map { manager in
                    var o = Object()
                    o.appendNew(key: "name", value: .string(manager.name))
                    o.appendNew(key: "source", value: .string(manager.source))
                    o.appendNew(key: "jobs", value: .int(manager.jobs))
                    if let oneThread = manager.oneThread { o.appendNew(key: "one_thread", value: .string(oneThread)) }
                    if let fields = manager.fields { o.appendNew(key: "fields", value: .array(fields.map(Value.string))) }
                    o.appendNew(key: "routes", value: .array(manager.routes.map(Self.json(for:))))
                    if let why = manager.why { o.appendNew(key: "why", value: .string(why)) }
                    return .object(o)
                }))
        return .object(root)
    }

    /// One route as JSON.
    private static func json(for route: Route) -> Value {
        var o = Object()
        o.appendNew(key: "output", value: .int(route.output))
        o.appendNew(
            key: "segments",
            value: .array(
                route.segments.map { segment in
                    var s = Object()
                    s.appendNew(key: "reformers", value: .array(segment.reformers.map(Value.string)))
                    s.appendNew(key: "tier", value: .string(segment.tier.rawValue))
                    if segment.onWorkers { s.appendNew(key: "workers", value: .bool(true)) }
                    return .object(s)
                }))
        if route.rowsFromLine { o.appendNew(key: "rows_from_line", value: .bool(true)) }
        return .object(o)
    }
}
