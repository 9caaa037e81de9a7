package import ReformSDK

/// `explode: tags`: one record per element of the array at a path, the element taking the
/// array's place; an empty array gives no record.
///
/// A record with no array there is rejected (`wrong-type`). The compiled tier runs it as a chain's
/// first step, over a top-level key, before a `pick`: each element is a range of the line.
package struct ExplodeStep: RecordStep {
    package static let name = "explode"
    package static let summary = "one record per element of an array at a path"
    package static let argument = SchemaType.string()

    /// Where the array is.
    let path: ValuePath

    package static func decode(_ argument: StepArgument) -> ExplodeStep? {
        argument.required().flatMap { argument.context.path($0, argument.what) }.map(ExplodeStep.init)
    }

    /// `explode: tags`, when the records may carry `tags` (the generated records' array).
    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        guard !context.known || context.keys.contains("tags") else { return nil }
        return StepSample("explode: tags")
    }

    /// The path's first key as the records carry it; the keys stay.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> ExplodeStep {
        ExplodeStep(path: StepSupport.resolving(path, constant, keys: keys))
    }

    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        let value = record.value
        guard case .array(let items)? = value[path: path] else {
            throw RecordError(
                code: "wrong-type", message: "step 'explode' needs an array at '\(path)'; found \(value[path: path]?.kindName ?? "nothing")"
            )
        }
        for item in items { out.append(Record(replacing(in: value, with: item), origin: record.origin)) }
    }

    /// `value` with `element` at the path; a part of the path that is not there leaves it as it is.
    private func replacing(in value: Value, with element: Value) -> Value {
        func replace(_ v: Value, _ components: ArraySlice<ValuePath.Component>) -> Value {
            guard let first = components.first else { return element }
            switch (first, v) {
            case (.key(let k), .object(var o)):
                o[k] = replace(o[k] ?? .null, components.dropFirst())
                return .object(o)
            case (.index(let i), .array(var a)):
                let at = i < 0 ? a.count + i : i
                guard a.indices.contains(at) else { return v }
                a[at] = replace(a[at], components.dropFirst())
                return .array(a)
            default:
                return v
            }
        }
        return replace(value, path.components[...])
    }

    /// The array's key holds an element now.
    package var columnTypes: ColumnTypeEffect { .forgets }

    /// Each element a range of the line (only as a chain's start).
    package var compiledForm: CompiledStepForm? { .explode(path) }
}
