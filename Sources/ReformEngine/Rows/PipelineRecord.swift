import ReformSDK

/// A record of a pipeline run rendering itself into a row shape by its manager's rules: the
/// engine's own ``RowModel``, so YAML row shapes and Swift record types go through one renderer.
struct PipelineRecord: RowModel {
    let value: Value
    let rules: Rules

    /// One manager's resolved rules: the path filling each column, each column's format, the style.
    struct Rules: Sendable {
        let paths: [ValuePath]
        let formats: [ValueFormat?]
        let style: RowStyle
        /// Styles by condition on the record, first match wins (``RowsPlan/styleWhen``).
        var styleWhen: [(condition: Condition, style: RowStyle)] = []

        /// The rules of every manager the shape names, and those of every other manager.
        static func all(for plan: RowsPlan) -> (byManager: [Int: Rules], other: Rules) {
            let keys = plan.columns.map { ValuePath([.key($0.key)]) }
            var byManager: [Int: Rules] = [:]
            for (index, rules) in plan.managers {
                byManager[index] = Rules(
                    paths: zip(rules.sources, keys).map { $0 ?? $1 }, formats: rules.formats, style: rules.style,
                    styleWhen: plan.styleWhen)
            }
            return (byManager, Rules(paths: keys, formats: keys.map { _ in nil }, style: .plain, styleWhen: plan.styleWhen))
        }
    }

    func fill(_ row: inout Row) throws(RecordError) {
        for i in rules.paths.indices {
            try row.set(at: i, value[path: rules.paths[i]] ?? .null, format: rules.formats[i])
        }
    }

    var rowStyle: RowStyle {
        for (condition, style) in rules.styleWhen where condition.holds(for: value) { return style }
        return rules.style
    }
}
