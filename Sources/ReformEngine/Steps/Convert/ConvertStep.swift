package import ReformSDK

/// `convert: { price: double, id: string }`: each key's value converted (`int`, `double`,
/// `bool`, `string`, `date`), as a mapping rule's `convert` does; a key a record lacks is left
/// alone.
///
/// A value the conversion refuses rejects the record with the conversion's reason; a record that is
/// not an object is rejected (`not-an-object`).
package struct ConvertStep: RecordStep {
    package static let name = "convert"
    package static let summary = "int, double, bool, string or date conversion of keys"
    package static let argument = SchemaType.named(.choice(of: Conversion.self))
    package static var sampleWeight: Int { 2 }
    package static var compiles: Bool { true }

    /// Each key and its conversion, in the order written.
    let pairs: [(key: String, conversion: Conversion)]

    package static func decode(_ argument: StepArgument) -> ConvertStep? {
        let context = argument.context
        let conversions = argument.required().flatMap {
            context.keyed($0, argument.what) { context.choice($0.value, "conversion", as: Conversion.self) }
        }
        return conversions.map { ConvertStep(pairs: $0.map { (key: $0.key, conversion: $0.value) }) }
    }

    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        let key = context.key(using: &random)
        return StepSample("convert: { \(key): \(SampleText.conversions.randomElement(using: &random) ?? "int") }")
    }

    /// Each key as the records carry it.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> ConvertStep {
        ConvertStep(pairs: pairs.map { (key: constant($0.key), conversion: $0.conversion) })
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        var object = try StepSupport.object(record, step: Self.name)
        for (key, conversion) in pairs {
            if let value = object[key] { object[key] = try conversion.apply(value, key: key) }
        }
        out.append(Record(.object(object), origin: record.origin))
    }

    /// Each key holds its conversion's type.
    package var columnTypes: ColumnTypeEffect { .sets(pairs.map { (key: $0.key, type: ColumnType($0.conversion)) }) }

    /// The conversion on each slot's text, kept as it is where the text already is the result.
    package var compiledForm: CompiledStepForm? { .convertValues(pairs) }
}
