public import ReformSDK

/// Lands a pipeline's run and hands each raw record to the caller, as the managers landed it and
/// before any reformer, writing neither the run's outputs nor its state: what
/// `reform schema --records` infers a schema from.
///
/// The run is the one `options` name, with its managers, params, fixtures or live calls, `--input`
/// files and `--limit` as `reform run` has them; its outputs are left out (none is opened, no
/// table is touched), its incremental state is neither read, locked nor written (a landing starts
/// from scratch, as a first run does, and may stop at `--limit`), and the records no manager could land go to a dead-letter file
/// that is removed afterwards (the summary counts them). Every record lands as a value: no fast
/// path writes a line past the caller.
public enum RecordLanding {
    /// Lands `pipeline`'s run as `options` say and calls `each` with every record and the manager
    /// that landed it, in landing order, on the calling thread; returns the run's counts.
    public static func land(
        _ pipeline: Pipeline, options: RunOptions, each: @escaping @Sendable (ManagerRef, Value) -> Void
    ) throws(RunError) -> RunSummary {
        let declared = try run(of: pipeline, options: options)
        let scratch = try ScratchFolder(prefix: "reform-landing")
        defer { scratch.remove() }
        let tap = RecordTap.plan(named: "landed", at: declared.location, options: try RecordTap.noOptions()) { record in
            each(record.origin.manager, record.value)
        }
        var landing = RecordTap.tapping(
            pipeline, run: declared, outputs: [RecordTap.output([tap], at: declared.location)], options: options)
        landing.options.deadLetterPath = scratch.file("dead-letter.ndjson")
        return try Runner(pipeline: landing.pipeline, options: landing.options).run()
    }

    /// The run `options` name in `pipeline` (``RunOptions/runName``: the run called `default`, or
    /// the first, when `nil`); throws a ``RunError`` listing the runs there are when it has none
    /// of that name.
    public static func run(of pipeline: Pipeline, options: RunOptions) throws(RunError) -> RunPlan {
        try Runner(pipeline: pipeline, options: options).chosenRun()
    }
}
