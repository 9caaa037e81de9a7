import Logging
import ReformSDK

/// Landing one manager: every record it lands goes through every output's chain, every bad one
/// to the dead-letter file.
extension Runner {
    /// Lands every record of `ref` into every output; returns how many landed and the input
    /// bytes read.
    /// `prepared`: its landing, when it was made (and its requests started) earlier.
    func land(_ ref: ManagerRef, sources: LandingSources, prepared: (ManagerLanding, ProgressMeter?)? = nil, into state: inout RunState)
        throws(RunError) -> (records: Int, bytes: Int)
    {
        let landing: ManagerLanding
        let meter: ProgressMeter?
        if let prepared {
            (landing, meter) = prepared
        } else {
            (landing, meter) = try self.landing(of: ref, sources: sources, into: &state)
        }
        switch landing {
        case .parallel(let parallel, let files):
            return try parallel.land(files, into: &state)
        case .sequential(let sources):
            let landed = try land(ref, from: sources, meter: meter, into: &state)
            meter?.finish()
            var paging = PagingReport(manager: ref.name)
            paging.records = landed.records
            paging.bytes = landed.bytes
            for source in sources { try report(source, of: ref, paging: &paging, into: &state) }
            if paging.pages > 0 || paging.partitions > 0 { state.summary.paging.append(paging) }
            return landed
        }
    }

    /// Lands `sources` one after the other on this thread (the single-core path).
    private func land(_ ref: ManagerRef, from sources: [any RecordSource], meter: ProgressMeter?, into state: inout RunState)
        throws(RunError) -> (records: Int, bytes: Int)
    {
        var landedBefore = 0
        var bytes = 0
        var directBefore = 0
        let routing = Routing(of: ref, in: state)
        do {
            for source in sources {
                let partitioned = source as? PartitionedSource
                // What a line path took never lands: it counts towards the sequence and the meter.
                let lineSource = source as? any LineSource
                let lines = lineSource?.linePath
                var limitReached = false
                var general = 0
                var bytesOfSource = 0
                source.observeBytes { read in
                    bytesOfSource = read
                    meter?.read(read)
                }
                meter?.handledElsewhere = { [directBefore] in directBefore + (lines?.handled ?? 0) }
                defer {
                    bytes += bytesOfSource
                    meter?.finishInput()
                }
                while let landed = try source.next() {
                    if let reason = options.stop.reason {
                        throw RunError(.interrupted, "\(reason); nothing was written")
                    }
                    if let limit = options.limit, landedBefore + general >= limit {
                        limitReached = true
                        break
                    }
                    if let incremental = state.incremental, incremental.checkpointDue {
                        try incremental.checkpoint(state.outputs)
                        options.logger?.info("checkpoint saved", metadata: ["records": .stringConvertible(landedBefore + general)])
                    }
                    general += 1
                    meter?.tick()
                    let sequence = landedBefore + general + (lines?.handled ?? 0)
                    try route(
                        landed, of: ref, sequence: sequence, from: source, writtenBefore: lines?.outputsWrittenForLastLine,
                        stages: lineSource?.lastRecordStages, partitioned: partitioned, routing: routing, into: &state)
                }
                let direct = lines?.handled ?? 0
                for (output, counts) in (lines?.counts ?? []).enumerated() where counts.written > 0 || counts.stages != nil {
                    state.outputs[output].countDirect(counts.written, stages: counts.stages)
                    state.summary.writtenDirectly += counts.written
                }
                directBefore += direct
                landedBefore += general + direct
                if limitReached { break }
            }
        } catch let error as RunError {
            throw error
        } catch let error as SourceError {
            throw RunError(error)
        } catch let error as OutputError {
            // A write error is the output's, not the manager's: it names the output alone.
            throw RunError(error)
        } catch {
            throw RunError(SourceError(manager: ref.name, message: "\(error)"))
        }
        return (landedBefore, bytes)
    }

    /// Makes the partitions each child of `ref` gets from one of its records; a record that lacks
    /// a field a child needs goes to the dead-letter file.
    private func collectPartitions(
        of children: [ManagerPlan], from value: Value, of ref: ManagerRef, sequence: Int, into state: inout RunState
    ) throws {
        for child in children {
            guard let plan = child.partitions else { continue }
            switch plan.params(fromParentRecord: value) {
            case .success(let params):
                // Every partition is held until the child runs: past its limit the run fails now,
                // before a child request, rather than run out of memory later.
                guard state.childPartitions[child.ref.index, default: PartitionCollector()].add(params, limit: plan.maxPartitions)
                else {
                    throw RunError(
                        .partitionLimit,
                        "the records of '\(ref.name)' make more than \(plan.maxPartitions) partitions of manager '\(child.ref.name)', "
                            + "its max_partitions (for_each at \(pipeline.file):\(plan.location)); raise 'max_partitions' "
                            + "(up to \(PartitionPlan.maxPartitionsCeiling); each partition is held in memory, a few hundred bytes) "
                            + "or narrow '\(ref.name)' with its params",
                        manager: child.ref.name)
                }
            case .failure(let error):
                try state.deadLetter.add(
                    manager: child.ref.name, sequence: sequence, input: "partitions from \(ref.name)", stage: "partition", error: error,
                    record: value)
            }
        }
    }

    /// Adds what a source did to the run's summary: the requests it sent and why its paging
    /// stopped (per partition), and each partition it skipped after a failure.
    private func report(_ source: any RecordSource, of ref: ManagerRef, paging: inout PagingReport, into state: inout RunState)
        throws(RunError)
    {
        func count(_ report: SourceReport, as name: String) {
            state.summary.requests += report.answered
            paging.pages += report.pages
            paging.requests += report.requests
            paging.stop(report.stopReason)
            if let reason = report.stopReason { state.summary.stopped.append((name, reason)) }
        }
        switch source {
        case let partitioned as PartitionedSource:
            paging.partitions = partitioned.finished.count + partitioned.failures.count
            for done in partitioned.finished { count(done.report, as: "\(ref.name)[\(done.partition.label)]") }
            for failure in partitioned.failures {
                do {
                    try state.deadLetter.add(
                        manager: ref.name, sequence: 0, input: "partition \(failure.partition.index + 1) (\(failure.partition.label))",
                        stage: "partition",
                        error: RecordError(code: failure.error.cause?.kind.rawValue ?? "source", message: failure.error.message),
                        record: failure.partition.object)
                } catch {
                    throw RunError(error)
                }
                state.summary.failedPartitions.append((ref.name, failure.partition.label, failure.error.message))
            }
            state.summary.partitions.append((ref.name, partitioned.finished.count + partitioned.failures.count))
        default:
            count(SourceReport(source), as: ref.name)
        }
    }

    /// Sends one landed record through every output's chain, or a bad one to the dead-letter file.
    /// What a landed record of one manager goes through besides the outputs' chains, worked out
    /// once per manager rather than per record (also deciding where a compiled chain start may land records).
    struct Routing {
        /// The managers whose partitions its records make, if any.
        let children: [ManagerPlan]?
        /// The run's incremental state, when this manager is incremental.
        let incremental: IncrementalRun?
        /// Whether its records go to the outputs (a parent landed only for its children's sake does not).
        let toOutputs: Bool

        init(of ref: ManagerRef, in state: RunState) {
            children = state.children[ref.index]
            incremental = state.incremental.flatMap { $0.isIncremental(ref.name) ? $0 : nil }
            toOutputs = !state.parentsOnly.contains(ref.index)
        }
    }

    /// `writtenBefore`: the outputs a line path already wrote the record to (`nil`: none); it goes
    /// to the others only (``FanOut``). `stages`: the reformers at the chain's start a line path
    /// already ran on it (``LineSource/lastRecordStages``).
    private func route(
        _ landed: Landed, of ref: ManagerRef, sequence: Int, from source: any RecordSource, writtenBefore written: [Bool]?, stages: Int?,
        partitioned: PartitionedSource?, routing: Routing, into state: inout RunState
    ) throws {
        if let stages, case .record(let value, let line, let page) = landed {
            // The line path's handover (the plan gives such a run no children, incremental state
            // or watch): the run's one output, or the one a fan-out left (the others have the line).
            let record = Record(value, origin: Origin(manager: ref, sequence: sequence, line: line, page: page))
            let output = written?.firstIndex(of: false) ?? 0
            try state.outputs[output].process(
                record, fromStage: stages, inputName: source.inputName, position: source.rangePosition, deadLetter: state.deadLetter,
                original: source.originalRecord)
            return
        }
        switch landed {
        case .record(let value, let line, let page):
            // A record the last run landed still makes its children's partitions.
            if let children = routing.children {
                try collectPartitions(of: children, from: value, of: ref, sequence: sequence, into: &state)
            }
            if let incremental = routing.incremental {
                guard incremental.accept(value, of: ref.name, partition: partitioned?.current?.label ?? "") else { return }
            }
            let record = Record(value, origin: Origin(manager: ref, sequence: sequence, line: line, page: page))
            options.watch?.landed(record, partition: partitioned?.current?.label)
            guard routing.toOutputs else { return }
            let rejectedBefore = state.deadLetter.count
            for i in state.outputs.indices where written?[i] != true {
                try state.outputs[i].process(
                    record, inputName: source.inputName, position: source.rangePosition, deadLetter: state.deadLetter,
                    original: source.originalRecord)
            }
            if let incremental = routing.incremental, state.deadLetter.count > rejectedBefore {
                // Not written (by one output at least): the bookmark must not pass it.
                incremental.rejected(value, of: ref.name, partition: partitioned?.current?.label ?? "")
            }
        case .bad(let line, let error, let text, let at):
            try state.deadLetter.add(
                manager: ref.name, sequence: sequence, input: at ?? "\(source.inputName):\(line)", stage: "input",
                error: error, record: nil, text: text)
        }
    }
}
