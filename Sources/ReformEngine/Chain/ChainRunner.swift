import ReformConcurrency
import ReformSDK
import ReformYAML

/// Runs records through one output's reformer chain, stage by stage, rejecting per record.
///
/// Each stage's buffer is reused across records, so a chain allocates nothing per record beyond
/// what its reformers build. A reformer that declares keys but is not a mapping (steps, plugins)
/// has its output checked: only declared keys, all of them, in declared order.
struct ChainRunner {
    struct Stage {
        var reformer: any Reformer
        let name: String
        /// Declared keys to enforce on this stage's output; nil when the reformer guarantees them.
        let guardKeys: KeySet?
        var buffer: RecordBuffer
    }

    /// A record a stage rejected, with the reason.
    struct Rejection {
        var record: Record
        let stage: String
        /// The position of the rejecting reformer in the chain.
        let stageIndex: Int
        let error: RecordError
    }

    /// What one stage did, when the runner is timing (``timing``).
    typealias StageCounts = ReformEngine.StageCounts

    private var stages: [Stage]
    /// The stage whose held records ``release(into:rejected:)`` is releasing.
    private var releasing = 0
    /// Whether to count and time every stage (``counts``); off on the hot path.
    var timing = false
    /// Per stage, in chain order: records in, out, rejected, and seconds spent in the reformer.
    private(set) var counts: [StageCounts] = []
    /// The run's watch and this chain's output among the run's, when the run is watched: it sees
    /// each record each stage (and each step of a `steps:` reformer) takes, makes and rejects.
    var watch: (RunWatch, output: Int)? {
        didSet {
            for index in stages.indices {
                guard var steps = stages[index].reformer as? StepsReformer else { continue }
                steps.watch = watch.map { ($0.0, RunWatch.Place(output: $0.output, stage: index)) }
                stages[index].reformer = steps
            }
        }
    }

    /// Each stage's name and, for a `steps:` reformer, its steps' names and lines.
    var stageOutline: [(name: String, steps: [(name: String, line: Int)])] {
        stages.map { stage in
            (stage.name, (stage.reformer as? StepsReformer)?.stepPlans.map { ($0.name, $0.location.line) } ?? [])
        }
    }

    /// The stages' names, in chain order.
    var stageNames: [String] { stages.map(\.name) }

    /// A runner of the chain `plans`; each `sort` step keeps about `sortMemory` bytes of records
    /// in memory (``RunOptions/sortMemory``).
    init(plans: [ReformerPlan], origin: Origin, sortMemory: Int = SortMemory.defaultBytes) throws(UnmadeReformer) {
        stages = try plans.map { plan throws(UnmadeReformer) in
            let reformer: any Reformer
            var guardKeys = plan.keys
            switch plan.kind {
            case .mapping(let mapping):
                reformer = MappingReformer(name: plan.name, keys: plan.keys ?? KeySet([]), plan: mapping)
                guardKeys = nil
            case .steps(let steps):
                reformer = StepsReformer(name: plan.name, keys: plan.keys, steps: steps, sortMemory: sortMemory)
            case .plugin(let plugin):
                do { reformer = try plugin.makeReformer() } catch {
                    throw UnmadeReformer(
                        message: "plugin '\(plugin.name)' of reformer '\(plan.name)' could not be made: \(error)", cause: error)
                }
            }
            return Stage(reformer: reformer, name: plan.name, guardKeys: guardKeys, buffer: RecordBuffer(origin: origin))
        }
        counts = stages.map { _ in StageCounts() }
    }

    /// Whether every stage handles each record on its own, holding nothing between records, so
    /// that several runners may share one input's records (``RunOptions/jobs``).
    static func isPerRecord(_ plans: [ReformerPlan]) -> Bool {
        perRecordStages(plans) == plans.count
    }

    /// How many reformers at the start of `plans` handle each record on its own: the part of the
    /// chain parallel workers can run before the first one that holds records (a `sort`, a
    /// `dedupe`, a plugin).
    static func perRecordStages(_ plans: [ReformerPlan]) -> Int {
        plans.prefix { plan in
            switch plan.kind {
            case .mapping: true
            case .steps(let steps): steps.allSatisfy(\.isPerRecord)
            case .plugin: false
            }
        }.count
    }

    /// Adds what another runner of the same chain counted (a worker's share of a parallel run).
    mutating func add(_ other: [StageCounts]) {
        for i in counts.indices where i < other.count {
            counts[i].recordsIn += other[i].recordsIn
            counts[i].recordsOut += other[i].recordsOut
            counts[i].rejected += other[i].rejected
            counts[i].seconds += other[i].seconds
        }
    }

    /// Feeds one landed record — or, from `stage` on, one the chain's first `stage` reformers
    /// already made (a ``ChainPrefix``'s) —; results go to `out`, rejections to `rejected`.
    mutating func process(_ record: Record, fromStage stage: Int = 0, into out: inout [Record], rejected: inout [Rejection]) {
        feed(record, stage: stage, into: &out, rejected: &rejected)
    }

    /// Releases the next batch of what the stages held back (a sort's records), through the stages
    /// after them: results go to `out`, rejections to `rejected`. Returns whether more may remain;
    /// call it after the last record until it returns `false`, draining `out` in between, so that
    /// held records never all sit in memory at once.
    ///
    /// Records a stage releases count as its output (``StageCounts/recordsOut``).
    mutating func release(into out: inout [Record], rejected: inout [Rejection]) -> Bool {
        while releasing < stages.count {
            let index = releasing
            var buffer = RecordBuffer(origin: stages[index].buffer.currentOrigin)
            swap(&buffer, &stages[index].buffer)
            buffer.removeAll()
            var failures: [(record: Record, error: RecordError)] = []
            let more = releaseBatch(of: index, into: &buffer, rejected: &failures)
            let released = buffer.records.count
            if timing {
                counts[index].recordsOut += released
                counts[index].rejected += failures.count
            }
            if let (watch, output) = watch {
                for failure in failures {
                    watch.rejected(failure.record, at: RunWatch.Place(output: output, stage: index), error: failure.error)
                }
            }
            for failure in failures {
                rejected.append(Rejection(record: failure.record, stage: stages[index].name, stageIndex: index, error: failure.error))
            }
            pass(&buffer, from: index, into: &out, rejected: &rejected)
            swap(&buffer, &stages[index].buffer)
            if !more { releasing += 1 }
            if released > 0 || !failures.isEmpty { return releasing < stages.count }
        }
        return false
    }

    /// One batch of stage `index`'s held records into `buffer`; whether it may hold more.
    private mutating func releaseBatch(
        of index: Int, into buffer: inout RecordBuffer, rejected: inout [(record: Record, error: RecordError)]
    ) -> Bool {
        // Take the reformer out of its stage so that the steps reformer read from it is the only
        // copy of its state (no copy-on-write of what it holds).
        var reformer: any Reformer = StepsReformer(name: "", keys: nil, steps: [])
        swap(&reformer, &stages[index].reformer)
        defer { swap(&reformer, &stages[index].reformer) }
        if var steps = reformer as? StepsReformer {
            reformer = StepsReformer(name: "", keys: nil, steps: [])
            defer { reformer = steps }
            do {
                return try steps.release(into: &buffer, rejected: &rejected, batch: ChainRunner.releaseBatch)
            } catch {
                rejected.append((Record(.null, origin: buffer.currentOrigin), error))
                return false
            }
        }
        do { try reformer.finish(into: &buffer) } catch {
            rejected.append((Record(.null, origin: buffer.currentOrigin), error))
        }
        return false
    }

    /// Records a sort releases at a time at the end of the stream.
    private static let releaseBatch = 1024

    private mutating func feed(_ record: Record, stage index: Int, into out: inout [Record], rejected: inout [Rejection]) {
        guard index < stages.count else {
            out.append(record)
            return
        }
        var buffer = RecordBuffer(origin: record.origin)
        swap(&buffer, &stages[index].buffer)
        buffer.removeAll()
        buffer.currentOrigin = record.origin
        let started = timing ? MonotonicClock.now() : 0
        do {
            if let (watch, output) = watch { watch.took(at: RunWatch.Place(output: output, stage: index)) }
            try stages[index].reformer.reform(record.value, from: record.origin.manager, into: &buffer)
            if timing {
                counts[index].seconds += MonotonicClock.now() - started
                counts[index].recordsIn += 1
                counts[index].recordsOut += buffer.records.count
            }
            pass(&buffer, from: index, into: &out, rejected: &rejected)
        } catch {
            if timing {
                counts[index].seconds += MonotonicClock.now() - started
                counts[index].recordsIn += 1
                counts[index].rejected += 1
            }
            if let (watch, output) = watch { watch.rejected(record, at: RunWatch.Place(output: output, stage: index), error: error) }
            rejected.append(Rejection(record: record, stage: stages[index].name, stageIndex: index, error: error))
        }
        swap(&buffer, &stages[index].buffer)
    }

    /// Checks a stage's output against its keys and feeds it on to the next stage.
    private mutating func pass(_ buffer: inout RecordBuffer, from index: Int, into out: inout [Record], rejected: inout [Rejection]) {
        let keys = stages[index].guardKeys
        for var produced in buffer.records {
            if let keys {
                do {
                    produced.value = try ChainRunner.conform(produced.value, to: keys, reformer: stages[index].name)
                } catch {
                    if timing {
                        counts[index].recordsOut -= 1
                        counts[index].rejected += 1
                    }
                    if let (watch, output) = watch {
                        watch.rejected(produced, at: RunWatch.Place(output: output, stage: index), error: error)
                    }
                    rejected.append(Rejection(record: produced, stage: stages[index].name, stageIndex: index, error: error))
                    continue
                }
            }
            if let (watch, output) = watch { watch.made(produced, at: RunWatch.Place(output: output, stage: index)) }
            feed(produced, stage: index + 1, into: &out, rejected: &rejected)
        }
    }

    /// The record with exactly the declared keys in declared order, or a rejection.
    static func conform(_ value: Value, to keys: KeySet, reformer: String) throws(RecordError) -> Value {
        guard case .object(let object) = value else {
            throw RecordError(code: "not-an-object", message: "reformer '\(reformer)' declares keys but emitted \(value.kindName)")
        }
        // The usual case: exactly the declared keys, already in order.
        if object.count == keys.keys.count, zip(object.members, keys.keys).allSatisfy({ $0.key == $1.constant }) {
            return value
        }
        if let extra = object.members.first(where: { member in !keys.keys.contains { $0.constant == member.key } }) {
            throw RecordError(
                code: "undeclared-key",
                message: "reformer '\(reformer)' emitted '\(extra.key)', which is not among its declared keys "
                    + "(\(keys.constants.joined(separator: ", ")))")
        }
        var ordered = Object(minimumCapacity: keys.keys.count)
        for key in keys.keys {
            guard let v = object[key.constant] else {
                throw RecordError(code: "missing-key", message: "reformer '\(reformer)' did not emit its declared key '\(key.constant)'")
            }
            ordered.appendNew(key: key.constant, value: v)
        }
        return .object(ordered)
    }
}

/// A chain's plugin that could not make its reformer (a run reports it as
/// ``RunError/Code/reformer``).
struct UnmadeReformer: Error {
    /// Which plugin of which reformer, and why.
    let message: String
    /// What the plugin threw.
    let cause: any Error
}
