public import ReformEngine
public import ReformSDK
import Synchronization

/// The schemas of the raw records a pipeline's managers land (`reform schema --records`): the
/// run's records landed as `reform run` lands them (fixtures, or live with `--live`), each
/// manager's widening a ``RecordSchema``, nothing written.
public struct LandedRecordSchemas: Sendable {
    /// Per manager described, in the run's order: its name, how many records it landed, and
    /// their schema.
    public let managers: [(name: String, records: Int, schema: RecordSchema)]
    /// The landing's counts (the records no manager could land among them).
    public let summary: RunSummary
    /// The run landed.
    public let run: String

    /// Lands `pipeline`'s run as `options` say and infers the schema of the records of each of
    /// `managers` (all of the run's when empty). Throws a ``RunError`` naming a manager the run
    /// does not land, or why the landing failed.
    public static func infer(_ pipeline: Pipeline, options: RunOptions, managers: [String]) throws(RunError) -> LandedRecordSchemas {
        let run = try RecordLanding.run(of: pipeline, options: options)
        let landed = run.managers.map(\.name)
        for name in managers where !landed.contains(name) {
            throw RunError(
                .unknownManager,
                "run '\(run.name)' of \(pipeline.file) lands no manager called '\(name)'"
                    + Suggestions.hint(for: name, in: landed) + "; it lands: \(landed.joined(separator: ", "))")
        }
        let described = managers.isEmpty ? landed : landed.filter { managers.contains($0) }
        let schemas = Mutex<[String: RecordSchema]>([:])
        let summary = try RecordLanding.land(pipeline, options: options) { manager, record in
            guard described.contains(manager.name) else { return }
            schemas.withLock { $0[manager.name, default: RecordSchema()].add(record) }
        }
        let found = schemas.withLock { $0 }
        return LandedRecordSchemas(
            managers: described.map { name in
                let schema = found[name] ?? RecordSchema()
                return (name, schema.records, schema)
            }, summary: summary, run: run.name)
    }

    /// The JSON Schema document: one manager's schema, or for several a document whose `$defs`
    /// hold each manager's under its name.
    public func document(pipeline: Pipeline) -> Value {
        if managers.count == 1, let only = managers.first {
            return only.schema.document(title: "Records of manager '\(only.name)' of \(pipeline.name)")
        }
        var definitions = Object()
        for manager in managers { definitions[manager.name] = manager.schema.schema }
        return [
            "$schema": .string(RecordSchema.draft), "title": .string("Records of run '\(run)' of \(pipeline.name)"),
            "$defs": .object(definitions),
        ]
    }
}
