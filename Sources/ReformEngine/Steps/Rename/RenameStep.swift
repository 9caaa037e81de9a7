package import ReformSDK

/// `rename: { title: name }`: keys renamed (old: new), each keeping its place.
///
/// A record that is not an object is rejected (`not-an-object`); a key a record lacks is no error.
/// A new name a record already has replaces that member. On the compiled tier it only changes
/// the names slots are written under; on lines passed whole, the key's bytes are rewritten.
package struct RenameStep: RecordStep {
    package static let name = "rename"
    package static let summary = "rename keys"
    package static let argument = SchemaType.named(.string())
    package static var sampleWeight: Int { 2 }
    package static var compiles: Bool { true }

    /// Each renamed key and its new name, in the order written.
    let pairs: [(from: String, to: String)]

    package static func decode(_ argument: StepArgument) -> RenameStep? {
        let context = argument.context
        let renames = argument.required().flatMap { context.keyed($0, argument.what) { context.string($0.value, argument.what) } }
        return renames.map { RenameStep(pairs: $0.map { (from: $0.key, to: $0.value) }) }
    }

    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        let key = context.key(using: &random)
        let to = SampleText.newNames.filter { !context.keys.contains($0) }.randomElement(using: &random) ?? "renamed"
        return StepSample("rename: { \(key): \(to) }", keys: .renaming(from: key, to: to))
    }

    /// Each old name as the records carry it; after it, they carry the new names in their places.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> RenameStep {
        let resolved = pairs.map { (from: constant($0.from), to: $0.to) }
        keys = keys.map { keys in
            KeySet(
                keys.keys.map { key in
                    resolved.first { $0.from == key.constant }.map { KeySet.Key(name: $0.to, constant: $0.to) } ?? key
                })
        }
        return RenameStep(pairs: resolved)
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        let object = try StepSupport.object(record, step: Self.name)
        var renamed = Object(minimumCapacity: object.count)
        for member in object.members {
            let key = pairs.first { $0.from == member.key }?.to ?? member.key
            renamed[key] = member.value
        }
        out.append(Record(.object(renamed), origin: record.origin))
    }

    /// The types move with the keys.
    package var columnTypes: ColumnTypeEffect { .renames(pairs) }

    /// Only the names slots are written under.
    package var compiledForm: CompiledStepForm? { .renameMembers(pairs) }
}
