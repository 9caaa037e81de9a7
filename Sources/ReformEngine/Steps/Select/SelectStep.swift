package import ReformSDK

/// `select: data.items`: each record replaced by the value at a path; an array there becomes one
/// record per element.
///
/// A record with nothing at the path is rejected (`missing-field`). What comes out may be any
/// value, so the keys records carry after it are not known at load time.
package struct SelectStep: RecordStep {
    package static let name = "select"
    package static let summary = "replace each record by the value at a path"
    package static let argument = SchemaType.string()

    /// Where the value is.
    let path: ValuePath

    package static func decode(_ argument: StepArgument) -> SelectStep? {
        argument.required().flatMap { argument.context.path($0, argument.what) }.map(SelectStep.init)
    }

    /// A path to an object (`loc`) or an array (`tags`) when the records carry one, else any key.
    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        let nested = context.keys.filter { $0 == "loc" || $0 == "tags" }
        let key = nested.randomElement(using: &random) ?? context.key(using: &random)
        return StepSample("select: \(key)", keys: .unknown)
    }

    /// The path's first key as the records carry it; the keys after are not known.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> SelectStep {
        defer { keys = nil }
        guard keys != nil, case .key(let first)? = path.components.first else { return self }
        return SelectStep(path: ValuePath([.key(constant(first))] + path.components.dropFirst()))
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        guard let selected = record.value[path: path] else {
            throw RecordError(code: "missing-field", message: "step 'select' found nothing at '\(path)'")
        }
        if case .array(let items) = selected {
            for item in items { out.append(Record(item, origin: record.origin)) }
        } else {
            out.append(Record(selected, origin: record.origin))
        }
    }

    /// The records become other values.
    package var columnTypes: ColumnTypeEffect { .forgets }
}
