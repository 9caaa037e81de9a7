package import ReformSDK

/// `set: { label: "{name} ({id})" }`: each key set to a string template rendered from the record
/// as it was before the step; a new key is added at the end.
///
/// A field a template needs and the record lacks rejects it (`{field?}` renders nothing instead);
/// a record that is not an object is rejected (`not-an-object`).
package struct SetStep: RecordStep {
    package static let name = "set"
    package static let summary = "keys from string templates over the record"
    package static let argument = SchemaType.named(.string())
    package static var sampleWeight: Int { 2 }
    package static var compiles: Bool { true }

    /// Each key and its template, in the order written.
    let pairs: [(key: String, template: Template)]

    package static func decode(_ argument: StepArgument) -> SetStep? {
        let context = argument.context
        let templates = argument.required().flatMap {
            context.keyed($0, argument.what) { context.recordTemplate($0.value, "'\($0.key)' in \(argument.what)") }
        }
        return templates.map { SetStep(pairs: $0.map { (key: $0.key, template: $0.value) }) }
    }

    /// A key the records carry or a new one, from a template over the keys.
    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        let fields = context.known ? context.keys : ["id", "name", "price", "ok", "floor"]
        let target = random.chance(2) ? context.key(using: &random) : SampleText.newNames.randomElement(using: &random) ?? "note"
        let template = SampleText.template(fields: fields, using: &random)
        return StepSample("set: { \(target): \(SampleText.quote(template)) }", keys: .adding([target]))
    }

    /// Each template's fields as the records carry them (a field they do not carry is reported),
    /// each key as they carry it or as written; after it, they carry them all.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> SetStep {
        for template in pairs.map(\.template) { _ = template.paths.map { StepSupport.resolving($0, constant, keys: keys) } }
        let before = keys
        let resolved = pairs.map { pair in
            (
                key: StepSupport.constant(of: pair.key, in: before),
                template: pair.template.renamingFirstKeys { before?.key(named: $0)?.constant }
            )
        }
        keys = StepSupport.adding(resolved.map(\.key), to: keys)
        return SetStep(pairs: resolved)
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        var object = try StepSupport.object(record, step: Self.name)
        for (key, template) in pairs { object[key] = .string(try template.render(record.value)) }
        out.append(Record(.object(object), origin: record.origin))
    }

    /// Each key holds text.
    package var columnTypes: ColumnTypeEffect { .sets(pairs.map { (key: $0.key, type: .text) }) }

    /// Each template rendered from the slots.
    package var compiledForm: CompiledStepForm? { .assignTemplates(pairs) }
}
