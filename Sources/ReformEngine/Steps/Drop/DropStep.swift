package import ReformSDK

/// `drop: [debug, raw]`: the named keys removed; a key a record lacks is no error.
///
/// A record that is not an object is rejected (`not-an-object`). On the compiled tier it only
/// decides which slots are written; on lines passed whole, the members are cut out of the line.
package struct DropStep: RecordStep {
    package static let name = "drop"
    package static let summary = "remove the named keys"
    package static let argument = SchemaType.stringOrList
    package static var sampleWeight: Int { 2 }
    package static var compiles: Bool { true }

    /// The keys removed.
    let keys: [String]

    package static func decode(_ argument: StepArgument) -> DropStep? {
        argument.required().flatMap { argument.context.stringList($0, argument.what) }.map(DropStep.init)
    }

    /// Some of the keys, never all the records are known to carry (a chain must leave one), now
    /// and then a key they lack.
    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        var dropped = SampleText.some(context.keys, atLeast: 1, using: &random)
        if context.known, dropped.count == context.keys.count { dropped.removeLast() }
        if dropped.isEmpty { return nil }
        if !context.known, random.chance(4) { dropped.append("nowhere") }
        return StepSample("drop: [\(dropped.joined(separator: ", "))]", keys: .removing(dropped))
    }

    /// Each key as the records carry it; they carry the others after it.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> DropStep {
        let constants = self.keys.map(constant)
        keys = keys.map { KeySet($0.keys.filter { !constants.contains($0.constant) }) }
        return DropStep(keys: constants)
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        var object = try StepSupport.object(record, step: Self.name)
        for key in keys { object[key] = nil }
        out.append(Record(.object(object), origin: record.origin))
    }

    /// The other keys keep their kinds.
    package var columnTypes: ColumnTypeEffect { .keeps }

    /// Only which slots are written (members cut from a passed line).
    package var compiledForm: CompiledStepForm? { .removeMembers(keys) }
}
