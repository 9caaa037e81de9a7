import ReformSDK

/// One step of a ``StepsReformer`` with its running state (seen keys, counts, held records).
struct StepState {
    let plan: StepPlan
    private var seen: Set<Value> = []
    private var count = 0
    /// A `sort` step's records, held (up to its memory budget, then spilled) until the end.
    private var held: ExternalSort<Record>?
    /// A `sort` step's records in order, once the end of the stream released them.
    private var released: SortedElements<Record>?

    /// The step of `plan`; a `sort` keeps about `sortMemory` bytes of records in memory.
    init(_ plan: StepPlan, sortMemory: Int = ExternalSort<Record>.defaultBudget) {
        self.plan = plan
        if case .sort(_, let descending) = plan.kind {
            held = ExternalSort(budget: sortMemory, descending: descending, context: ())
        }
    }

    mutating func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        let value = record.value
        switch plan.kind {
        case .sort(let path, _):
            // Keys compare as the output writes them (``Value/asWritten``).
            do { try held?.append(record, key: (value[path: path] ?? .null).asWritten) } catch { throw error.recordError }
        case .dedupe(let paths):
            // One path's value is its own key (equal exactly when the one-element lists would be),
            // without a list made per record.
            let key: Value =
                paths.isEmpty
                ? value : paths.count == 1 ? value[path: paths[0]] ?? .null : .array(paths.map { value[path: $0] ?? .null })
            if seen.insert(key.asWritten).inserted { out.append(record) }
        case .limit(let limit):
            if count < limit {
                count += 1
                out.append(record)
            }
        case .component(let component):
            try component.step.apply(record, into: &out)
        }
    }

    /// The next record this step held until the end of the stream (a sort's, in order), or `nil`
    /// when none are left; call it only after the last ``apply(_:into:)``.
    mutating func nextReleased() throws(SpillError) -> Record? {
        if released == nil, var sort = held {
            held = nil
            released = sort.sorted()
        }
        return try released?.next()
    }
}
