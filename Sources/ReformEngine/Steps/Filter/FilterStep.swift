package import ReformSDK

/// `filter: "price > 0 and status == 'open'"`: only the records for which the condition holds.
///
/// The condition's language (comparisons, `in`, `contains`, `startswith`, `endswith`, `and`,
/// `or`, `not`, a path alone for truthiness) is `Condition`'s, the same as rows' `style_when`.
/// A path a record lacks reads as null.
package struct FilterStep: RecordStep {
    package static let name = "filter"
    package static let summary = "keep records matching a condition"
    package static let argument = SchemaType.string()
    package static var sampleWeight: Int { 4 }
    package static var compiles: Bool { true }

    /// What a record must satisfy.
    let condition: Condition

    package static func decode(_ argument: StepArgument) -> FilterStep? {
        let context = argument.context
        guard let node = argument.required(), let text = context.string(node, argument.what) else { return nil }
        do { return FilterStep(condition: try Condition(parsing: text)) } catch {
            context.error("\(argument.what): \(error.message)", at: context.location(in: node, column: error.column))
            return nil
        }
    }

    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        StepSample("filter: \(SampleText.quote(SampleText.condition(keys: context.keys, depth: 2, using: &random)))")
    }

    /// The condition's paths as the records carry them (a key they do not carry is reported).
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> FilterStep {
        for path in condition.paths { _ = StepSupport.resolving(path, constant, keys: keys) }
        let before = keys
        return FilterStep(condition: condition.renamingFirstKeys { before?.key(named: $0)?.constant })
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        if condition.holds(for: record.value) { out.append(record) }
    }

    /// Records are only kept or not.
    package var columnTypes: ColumnTypeEffect { .keeps }

    /// The condition over the slots it names.
    package var compiledForm: CompiledStepForm? { .keepRecords(when: condition) }
}
