package import ReformSDK

/// `defaults: { currency: EUR, count: 0 }`: each key given a value when it is missing or null; a
/// missing key is added at the end.
///
/// A record that is not an object is rejected (`not-an-object`). Strings may hold `${VAR}`s,
/// resolved when the pipeline loads.
package struct DefaultsStep: RecordStep {
    package static let name = "defaults"
    package static let summary = "fill missing or null keys"
    package static let argument = SchemaType.named(.any)
    package static var compiles: Bool { true }

    /// Each key and its value, in the order written.
    let pairs: [(key: String, value: Value)]

    package static func decode(_ argument: StepArgument) -> DefaultsStep? {
        let context = argument.context
        let values = argument.required().flatMap { context.keyed($0, argument.what) { context.value($0.value, argument.what) } }
        return values.map { DefaultsStep(pairs: $0.map { (key: $0.key, value: $0.value) }) }
    }

    /// A key the records carry, or a new one.
    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        let target = random.chance(2) ? context.key(using: &random) : SampleText.newNames.randomElement(using: &random) ?? "extra"
        let value = SampleText.values.randomElement(using: &random) ?? "0"
        return StepSample("defaults: { \(target): \(value) }", keys: .adding([target]))
    }

    /// Each key as the records carry it, or as written when they do not yet; after it, they carry
    /// them all.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> DefaultsStep {
        let resolved = pairs.map { (key: StepSupport.constant(of: $0.key, in: keys), value: $0.value) }
        keys = StepSupport.adding(resolved.map(\.key), to: keys)
        return DefaultsStep(pairs: resolved)
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        var object = try StepSupport.object(record, step: Self.name)
        for (key, fallback) in pairs where object[key]?.isNull ?? true { object[key] = fallback }
        out.append(Record(.object(object), origin: record.origin))
    }

    /// The column types are the chain's declared or inferred ones.
    package var columnTypes: ColumnTypeEffect { .keeps }

    /// A null slot takes the value's text; a key the records lack is a constant slot.
    package var compiledForm: CompiledStepForm? { .fillNulls(pairs) }
}
