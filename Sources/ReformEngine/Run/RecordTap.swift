public import ReformSDK
import ReformYAML

/// A reformer, put at the end of a chain by the engine, that hands each record it takes to a
/// closure and emits nothing: how ``RecordLanding`` sees what managers land and ``RunRecords``
/// what leaves each output's chain.
final class RecordTap: ReformerPlugin {
    static let pluginName = "reform-tap"
    let name = RecordTap.pluginName
    let each: @Sendable (Record) -> Void

    init(each: @escaping @Sendable (Record) -> Void) {
        self.each = each
    }

    func make(options: PluginOptions) -> Tap { Tap(each: each) }

    /// The tap as the last reformer of a chain: `name` in messages, declared at `location`.
    static func plan(
        named name: String, at location: SourceLocation, options: PluginOptions, each: @escaping @Sendable (Record) -> Void
    ) -> ReformerPlan {
        ReformerPlan(
            name: name, keys: nil,
            kind: .plugin(
                PluginPlan(
                    name: pluginName, library: PluginPlan.inProcess, plugin: RecordTap(each: each), options: options, fieldsRead: [:])),
            location: location)
    }

    struct Tap: Reformer {
        let each: @Sendable (Record) -> Void

        mutating func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
            each(Record(record, origin: output.currentOrigin))
        }
    }
}

extension RecordTap {
    /// Options for a tap that takes none.
    static func noOptions() throws(RunError) -> PluginOptions {
        guard let none = try? PluginOptions(checking: [:], against: []) else {
            throw RunError(.system, "internal error: a plugin without options refused none")
        }
        return none
    }

    /// An output of `chain` written nowhere (`/dev/null`): what a tap at the chain's end took is
    /// all it gives.
    static func output(_ chain: [ReformerPlan], at location: SourceLocation) -> OutputPlan {
        OutputPlan(
            chain: chain, rows: nil, format: .ndjson, path: "/dev/null", keys: nil, byteOrderMark: false, table: nil, location: location)
    }

    /// `pipeline` with only its run `declared`, whose outputs are `outputs`, and `options` that run
    /// it so: every record a value on one thread, no state read, locked or written, and no output
    /// anywhere else.
    static func tapping(_ pipeline: Pipeline, run declared: RunPlan, outputs: [OutputPlan], options: RunOptions) -> (
        pipeline: Pipeline, options: RunOptions
    ) {
        let run = RunPlan(
            name: declared.name, managers: declared.managers, params: declared.params, outputs: outputs, location: declared.location)
        let tapped = Pipeline(
            file: pipeline.file, folder: pipeline.folder, name: pipeline.name, services: pipeline.services, managers: pipeline.managers,
            reformers: pipeline.reformers, rows: pipeline.rows, runs: [run])
        var options = options
        options.runName = declared.name
        options.outputPath = nil
        options.outputFolder = nil
        options.ignoresState = true
        options.directWrites = false
        options.jobs = 1
        return (tapped, options)
    }
}
