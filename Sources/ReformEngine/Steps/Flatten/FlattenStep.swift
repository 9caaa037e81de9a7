package import ReformSDK
import ReformYAML

/// `flatten` (or `flatten: _`, `flatten: { separator: _ }`): nested objects become top-level
/// keys, their names joined with a separator (`.` unless given): `{ address: { city: X } }` →
/// `{ "address.city": X }`.
///
/// Arrays and empty objects inside stay as they are, under their joined name; a record that is
/// not an object becomes `{ value: … }`. The keys after it are not known at load time.
package struct FlattenStep: RecordStep {
    package static let name = "flatten"
    package static let summary = "nested objects into dotted top-level keys"
    package static let argument = SchemaType.oneOf([.string(), .null, .object(options)])
    package static var mayBeBare: Bool { true }

    /// `flatten: { separator: … }`.
    package static let options = SchemaObject(
        "How nested keys are joined.", keys: [SchemaKey("separator", .string(), "The text between nested keys (default '.').")])

    /// The text between nested keys.
    let separator: String

    package static func decode(_ argument: StepArgument) -> FlattenStep? {
        let context = argument.context
        guard let node = argument.node, !node.isNullScalar else { return FlattenStep(separator: ".") }
        if case .mapping = node.content {
            guard let options = context.mapping(node, argument.what, allowed: options.keyNames) else { return nil }
            return FlattenStep(separator: options["separator"].flatMap { context.string($0, argument.what) } ?? ".")
        }
        return context.string(node, argument.what).map(FlattenStep.init)
    }

    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        let text = ["flatten", "flatten: _", "flatten: { separator: \"·\" }", "flatten: \"\""].randomElement(using: &random) ?? "flatten"
        return StepSample(text, keys: .unknown)
    }

    /// The keys after are not known.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> FlattenStep {
        keys = nil
        return self
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        var flat = Object()
        flatten(record.value, prefix: "", into: &flat)
        out.append(Record(.object(flat), origin: record.origin))
    }

    private func flatten(_ value: Value, prefix: String, into out: inout Object) {
        if case .object(let o) = value, !(o.isEmpty && !prefix.isEmpty) {
            for member in o.members {
                flatten(member.value, prefix: prefix.isEmpty ? member.key : prefix + separator + member.key, into: &out)
            }
        } else {
            out[prefix.isEmpty ? "value" : prefix] = value
        }
    }

    /// The keys become other keys.
    package var columnTypes: ColumnTypeEffect { .forgets }
}
