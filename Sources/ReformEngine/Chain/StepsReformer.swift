public import ReformSDK

/// A chain of built-in steps (`steps:`) run as one reformer.
///
/// Streaming steps pass records on at once; `sort` holds them until the end of the stream (up to
/// a memory budget, then in a temporary file; see `ExternalSort`) and releases them, sorted, to
/// the steps after it.
public struct StepsReformer: Reformer {
    /// The reformer's name in the pipeline.
    public let name: String
    /// The declared keys, when any.
    public let keys: KeySet?
    private var stages: [StepState]
    /// The step whose held records ``release(into:rejected:batch:)`` is releasing.
    private var releasing = 0
    /// The run's watch and where this reformer is in the run's chains, when the run is watched:
    /// it sees what each step takes, makes and rejects.
    var watch: (RunWatch, RunWatch.Place)?

    /// The steps, in order.
    var stepPlans: [StepPlan] { stages.map(\.plan) }

    /// A steps reformer from its (resolved) steps; each `sort` step keeps about `sortMemory` bytes
    /// of records in memory and spills the rest to a temporary file.
    public init(name: String, keys: KeySet?, steps: [StepPlan], sortMemory: Int = SortMemory.defaultBytes) {
        self.name = name
        self.keys = keys
        stages = steps.map { StepState($0, sortMemory: sortMemory) }
    }

    /// Runs one record through the steps.
    public mutating func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
        try push([Record(record, origin: output.currentOrigin)], from: 0, into: &output)
    }

    /// Releases what sorting steps held back, through the steps after them; throws the first
    /// rejection of a released record (the engine uses `release(into:rejected:batch:)`, which
    /// rejects records one by one).
    public mutating func finish(into output: inout RecordBuffer) throws(RecordError) {
        var rejected: [(record: Record, error: RecordError)] = []
        while try release(into: &output, rejected: &rejected, batch: Int.max) {}
        if let first = rejected.first { throw first.error }
    }

    /// Releases up to about `batch` records that sorting steps held back, run through the steps
    /// after them, into `output`; a released record a later step rejects goes to `rejected`.
    /// Returns whether more may remain: call it until it returns `false`.
    ///
    /// Throws only when a sort cannot read its temporary file back (``RecordError/isSpillFailure``).
    mutating func release(
        into output: inout RecordBuffer, rejected: inout [(record: Record, error: RecordError)], batch: Int
    ) throws(RecordError) -> Bool {
        var released = 0
        while releasing < stages.count {
            let next: Record?
            do { next = try stages[releasing].nextReleased() } catch { throw error.recordError }
            guard let record = next else {
                releasing += 1
                continue
            }
            if let (watch, place) = watch {
                watch.made(record, at: RunWatch.Place(output: place.output, stage: place.stage, step: releasing))
            }
            do { try push([record], from: releasing + 1, into: &output) } catch {
                if error.isSpillFailure { throw error }
                rejected.append((record, error))
            }
            released += 1
            if released >= batch { return true }
        }
        return false
    }

    private mutating func push(_ records: [Record], from first: Int, into output: inout RecordBuffer) throws(RecordError) {
        var current = records
        var next: [Record] = []
        for i in first..<stages.count {
            next.removeAll(keepingCapacity: true)
            for record in current {
                guard let (watch, reformer) = watch else {
                    try stages[i].apply(record, into: &next)
                    continue
                }
                // A watched run: what each step takes, makes and rejects.
                let place = RunWatch.Place(output: reformer.output, stage: reformer.stage, step: i)
                let before = next.count
                watch.took(at: place)
                do { try stages[i].apply(record, into: &next) } catch {
                    watch.rejected(record, at: place, error: error)
                    throw error
                }
                for made in next[before...] { watch.made(made, at: place) }
            }
            swap(&current, &next)
            if current.isEmpty { return }
        }
        for record in current { output.append(record) }
    }
}
