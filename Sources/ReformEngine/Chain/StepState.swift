import ReformSDK

/// One step of a ``StepsReformer`` with its running state: a per-record step as it is, a holding
/// step's run (the keys a `dedupe` saw, what a `limit` counted, what a `sort` holds).
struct StepState {
    let plan: StepPlan
    /// The run of a holding step; `nil` for a per-record step.
    private var run: (any HoldingRun)?

    /// The step of `plan`; a `sort` keeps about `sortMemory` bytes of records in memory.
    init(_ plan: StepPlan, sortMemory: Int = ExternalSort<Record>.defaultBudget) {
        self.plan = plan
        if case .holding(let holding) = plan.kind { run = holding.step.start(sortMemory: sortMemory) }
    }

    mutating func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        switch plan.kind {
        case .holding:
            // Optional chaining runs the run in place: what it holds is not copied.
            try run?.apply(record, into: &out)
        case .component(let component):
            try component.step.apply(record, into: &out)
        }
    }

    /// The next record this step held until the end of the stream (a sort's, in order), or `nil`
    /// when none are left; call it only after the last ``apply(_:into:)``.
    mutating func nextReleased() throws(SpillError) -> Record? {
        try run?.nextReleased()
    }
}
