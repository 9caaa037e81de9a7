package import ReformSDK
import ReformYAML

/// `dedupe: [id]` (or `dedupe: id`): only the first record of each key, the values at the named
/// paths; `dedupe` (or `dedupe: true`) compares whole records.
///
/// Keys compare as the output writes them (``Value/asWritten``): `1` and `1.0` are one key, as
/// are a missing key and a null. One path's value is its own key; several make a list.
package struct DedupeStep: HoldingStep {
    package static let name = "dedupe"
    package static let summary = "drop records repeating the given keys"
    package static let argument = SchemaType.oneOf([.null, .bool, .stringOrList])
    /// `- dedupe` compares whole records.
    package static let mayBeBare = true

    /// The paths whose values make a record's key; the whole record when empty.
    let keys: [ValuePath]

    package static func decode(_ argument: StepArgument) -> DedupeStep? {
        guard let node = argument.node, !node.isNullScalar else { return DedupeStep(keys: []) }
        if case .scalar(let scalar) = node.content, case .bool(true) = scalar.value { return DedupeStep(keys: []) }
        return argument.context.pathList(node, argument.what).map(DedupeStep.init)
    }

    /// Whole records now and then, else one or more keys of the records.
    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        if random.chance(4) { return StepSample(random.chance(2) ? "dedupe: true" : "dedupe") }
        return StepSample("dedupe: [\(SampleText.some(context.keys, atLeast: 1, using: &random).joined(separator: ", "))]")
    }

    package func resolving(_ constant: (String) -> String, keys known: KeySet?) -> DedupeStep {
        DedupeStep(keys: keys.map { StepSupport.resolving($0, constant, keys: known) })
    }

    package func start(sortMemory: Int) -> any HoldingRun { Run(keys: keys) }

    package var heldLinesForm: HeldLinesForm { .dedupe(keys: keys) }

    /// The keys seen so far.
    private struct Run: HoldingRun {
        let keys: [ValuePath]
        var seen: Set<Value> = []

        mutating func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
            let value = record.value
            // One path's value is its own key (equal exactly when the one-element lists would
            // be), without a list made per record.
            let key: Value =
                keys.isEmpty
                ? value : keys.count == 1 ? value[path: keys[0]] ?? .null : .array(keys.map { value[path: $0] ?? .null })
            if seen.insert(key.asWritten).inserted { out.append(record) }
        }
    }
}
