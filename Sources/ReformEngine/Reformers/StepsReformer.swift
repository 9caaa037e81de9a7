public import ReformSDK

/// A chain of built-in steps (`steps:`) run as one reformer.
///
/// Streaming steps pass records on at once; `sort` holds them until the end of the stream and
/// releases them, sorted, to the steps after it.
public struct StepsReformer: Reformer {
    /// The reformer's name in the pipeline.
    public let name: String
    /// The declared keys, when any.
    public let keys: KeySet?
    private var stages: [StepState]

    /// A steps reformer from its (resolved) steps.
    public init(name: String, keys: KeySet?, steps: [StepPlan]) {
        self.name = name
        self.keys = keys
        stages = steps.map(StepState.init)
    }

    /// Runs one record through the steps.
    public mutating func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
        try push([Record(record, origin: output.currentOrigin)], from: 0, into: &output)
    }

    /// Releases what sorting steps held back, through the steps after them.
    public mutating func finish(into output: inout RecordBuffer) throws(RecordError) {
        for i in stages.indices {
            let held = stages[i].finish()
            if !held.isEmpty { try push(held, from: i + 1, into: &output) }
        }
    }

    private mutating func push(_ records: [Record], from first: Int, into output: inout RecordBuffer) throws(RecordError) {
        var current = records
        var next: [Record] = []
        for i in first..<stages.count {
            next.removeAll(keepingCapacity: true)
            for record in current { try stages[i].apply(record, into: &next) }
            swap(&current, &next)
            if current.isEmpty { return }
        }
        for record in current { output.append(record) }
    }
}
