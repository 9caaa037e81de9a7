package import ReformSDK

/// `pick: [id, name]`: only the named keys, in that order.
///
/// A record without one of them is rejected (`missing-field`); one that is not an object too
/// (`not-an-object`). After it the records carry exactly those keys. On the compiled tier it costs
/// nothing per record: it only decides which slots are written, and in which order.
package struct PickStep: RecordStep {
    package static let name = "pick"
    package static let summary = "keep only the named keys"
    package static let argument = SchemaType.stringOrList
    package static var sampleWeight: Int { 2 }
    package static var compiles: Bool { true }

    /// The keys kept, in order.
    let keys: [String]

    package static func decode(_ argument: StepArgument) -> PickStep? {
        argument.required().flatMap { argument.context.stringList($0, argument.what) }.map(PickStep.init)
    }

    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        let picked = SampleText.some(context.keys, atLeast: 1, using: &random)
        return StepSample("pick: [\(picked.joined(separator: ", "))]", keys: .known(picked))
    }

    /// Each key as the records carry it; after it, the records carry exactly these.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> PickStep {
        let constants = self.keys.map(constant)
        let before = keys
        keys = KeySet(zip(self.keys, constants).map { .init(name: before?.key(named: $0)?.name ?? $0, constant: $1) })
        return PickStep(keys: constants)
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        let object = try StepSupport.object(record, step: Self.name)
        var picked = Object(minimumCapacity: keys.count)
        for key in keys {
            guard let value = object[key] else {
                throw RecordError(code: "missing-field", message: "step 'pick' needs '\(key)', which this record lacks")
            }
            picked.appendNew(key: key, value: value)
        }
        out.append(Record(.object(picked), origin: record.origin))
    }

    /// The kept keys keep their kinds.
    package var columnTypes: ColumnTypeEffect { .keeps }

    /// Only which slots are written.
    package var compiledForm: CompiledStepForm? { .keepMembers(keys) }
}
