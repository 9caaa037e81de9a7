package import ReformSDK
import ReformYAML

/// `sort: price` or `sort: { by: price, order: desc }`: every record, in the order of the value
/// at a path.
///
/// The sort is stable (records with equal keys keep the order they came in), and compares keys as
/// the output writes them (``Value/asWritten``, ordered by ``ValueOrder``): numbers as numbers,
/// strings by their Unicode scalars, nulls and missing keys last in either order. It holds every
/// record until the end of the stream, about `--sort-memory` bytes of them in memory and the rest
/// spilled to sorted runs on disk (``ExternalSort``).
package struct SortStep: HoldingStep {
    package static let name = "sort"
    package static let summary = "stable sort by a key"
    package static let argument = SchemaType.oneOf([.string(), .object(PipelineSchema.sortOptions)])

    /// The path sorted by.
    let key: ValuePath
    /// Whether the largest comes first.
    let descending: Bool

    package static func decode(_ argument: StepArgument) -> SortStep? {
        guard let node = argument.required() else { return nil }
        let context = argument.context
        guard case .mapping = node.content else {
            return context.path(node, argument.what).map { SortStep(key: $0, descending: false) }
        }
        guard let m = context.mapping(node, argument.what, allowed: PipelineSchema.sortOptions.keyNames),
            let by = context.requireKey("by", in: m, argument.what), let path = context.path(by, argument.what)
        else { return nil }
        var descending = false
        if let order = m["order"], let text = context.string(order, argument.what) {
            guard text == "asc" || text == "desc" else {
                context.error("'order' of \(argument.what) must be 'asc' or 'desc', not '\(text)'", at: order.location)
                return nil
            }
            descending = text == "desc"
        }
        return SortStep(key: path, descending: descending)
    }

    /// A key of the records, ascending (as a bare path or written out) or descending.
    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        let key = context.key(using: &random)
        if random.chance(2) { return StepSample("sort: \(key)") }
        return StepSample("sort: { by: \(key), order: \(random.chance(2) ? "desc" : "asc") }")
    }

    package func resolving(_ constant: (String) -> String, keys: KeySet?) -> SortStep {
        SortStep(key: StepSupport.resolving(key, constant, keys: keys), descending: descending)
    }

    package func start(sortMemory: Int) -> any HoldingRun {
        Run(key: key, held: ExternalSort(budget: sortMemory, descending: descending, context: ()))
    }

    package var heldLinesForm: HeldLinesForm { .sort(key: key, descending: descending) }

    /// The records held (up to the memory budget, then spilled), and once the stream ended, the
    /// same records in order.
    private struct Run: HoldingRun {
        let key: ValuePath
        var held: ExternalSort<Record>?
        var released: SortedElements<Record>?

        mutating func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
            do { try held?.append(record, key: (record.value[path: key] ?? .null).asWritten) } catch { throw error.recordError }
        }

        mutating func nextReleased() throws(SpillError) -> Record? {
            if released == nil, var sort = held.take() { released = sort.sorted() }
            return try released?.next()
        }
    }
}
