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
