import Logging
import ReformConcurrency
import ReformSDK

/// Executes one run of a pipeline: lands each manager's records, feeds every output's chain,
/// writes outputs atomically and rejected records to the dead-letter file.
///
/// `run()` reads as the run's steps: choose the run, check its files, prepare the outputs,
/// land every manager, finish the outputs, then commit them all (or abandon them all).
public struct Runner: Sendable {
    /// The pipeline.
    public let pipeline: Pipeline
    /// What was asked on the command line.
    public let options: RunOptions

    /// A runner for `pipeline` with `options`.
    public init(pipeline: Pipeline, options: RunOptions) {
        self.pipeline = pipeline
        self.options = options
    }

    /// Runs to the end and returns the counts; throws when the run cannot start or a source fails
    /// as a whole (outputs are then left untouched; the dead-letter file keeps what it had).
    ///
    /// Blocks the calling thread until the run ends: call it from a thread of your own (the
    /// command line calls it from the main thread). From async code `await` the async `run()`.
    public func run() throws(RunError) -> RunSummary {
        if let answered = try withExecSecrets() { return try answered.run() }
        let plan = try chosenRun()
        try checkInputs(of: plan)
        try checkParams(of: plan)
        try checkPartitionLists(of: plan)
        try checkPaths(of: plan, stateFile: IncrementalRun.stateFile(runner: self, runPlan: plan))
        let lock = try takeLock(of: plan)
        defer { lock.release() }
        let incremental = try IncrementalRun(runner: self, runPlan: plan)
        var state = try prepare(plan, incremental: incremental)
        do throws(RunError) {
            state.givenPartitions = try givenPartitions(of: plan)
            try landManagers(into: &state)
            try finishOutputs(of: &state)
        } catch {
            throw abandon(state, after: error)
        }
        do throws(RunError) { try state.incremental?.commit(state.outputs, tables: state.tables) } catch {
            throw abandon(state, after: error)
        }
        try commit(state)
        return summary(of: state)
    }

    /// The dead-letter file's path.
    var deadLetterPath: String { options.deadLetterPath ?? "reform-dead-letter.ndjson" }

    /// The run `--run` names, or the default one.
    func chosenRun() throws(RunError) -> RunPlan {
        guard let plan = pipeline.run(named: options.runName) else {
            let names = pipeline.runs.map(\.name)
            throw RunError(
                .noSuchRun,
                "no run called '\(options.runName ?? "default")' in \(pipeline.file)"
                    + Suggestions.hint(for: options.runName ?? "", in: names) + " (runs: \(names.joined(separator: ", ")))")
        }
        return plan
    }

    /// Refuses an `--input` for a manager the run does not use, and a tagged standard input that
    /// several managers would each have to read.
    func checkInputs(of plan: RunPlan) throws(RunError) {
        if options.taggedInputs.contains("-"), plan.managers.count > 1 {
            throw RunError(
                .unknownInput,
                "--tagged-input - reads standard input, but each of the \(plan.managers.count) managers of run '\(plan.name)' "
                    + "reads the tagged input in turn, and standard input can be read only once; write it to a file and give its path")
        }
        for input in options.inputs where !plan.managers.contains(where: { $0.name == input.manager }) {
            throw RunError(
                .unknownInput,
                "--input names manager '\(input.manager)', which run '\(plan.name)' does not use"
                    + Suggestions.hint(for: input.manager, in: plan.managers.map(\.name))
                    + " (its managers: \(plan.managers.map(\.name).joined(separator: ", ")))",
                manager: input.manager)
        }
    }

    /// Refuses a `--param` that no manager of the run declares (a typo would send nothing), saying
    /// which managers take which parameters.
    func checkParams(of plan: RunPlan) throws(RunError) {
        // The parents a fan-out lands for its children take parameters too (also when their
        // partitions are given in a file: a job passes every task the same parameters).
        let managers = landingOrder(of: plan, withGivenParents: true).map { pipeline.managers[$0.index] }
        func names(_ manager: ManagerPlan) -> [String] {
            var names = manager.params.map(\.name)
            for name in (manager.partitions?.params ?? []) + [manager.incremental?.param].compactMap({ $0 }) where !names.contains(name) {
                names.append(name)
            }
            return names
        }
        let known = managers.flatMap(names)
        for name in options.params.keys.sorted() where !known.contains(name) {
            // Managers that take the same parameters are named together.
            var groups: [(managers: [String], params: [String])] = []
            for manager in managers {
                let params = names(manager)
                if let i = groups.firstIndex(where: { $0.params == params }) {
                    groups[i].managers.append(manager.ref.name)
                } else {
                    groups.append(([manager.ref.name], params))
                }
            }
            let takes = groups.map { group in
                let who =
                    group.managers.count == 1
                    ? group.managers[0] : group.managers.dropLast().joined(separator: ", ") + " and " + (group.managers.last ?? "")
                let what = group.params.isEmpty ? "none" : group.params.joined(separator: ", ")
                return "\(who) \(group.managers.count == 1 ? "takes" : "take") \(what)"
            }
            throw RunError(
                .unknownParam,
                "--param '\(name)' is not a parameter of any manager of run '\(plan.name)'"
                    + Suggestions.hint(for: name, in: known) + " (\(takes.joined(separator: "; ")))")
        }
    }

    /// Refuses a comma-separated partition list (`--param repo=a,b,…` or the run's params) longer
    /// than its manager's `max_partitions`, before any request.
    private func checkPartitionLists(of plan: RunPlan) throws(RunError) {
        let given = params(of: plan)
        for ref in landingOrder(of: plan) {
            guard let partitions = pipeline.managers[ref.index].partitions, case .values(let param, _) = partitions.source,
                given[param] != nil
            else { continue }
            let count: Int
            do throws(SourceError) {
                count = try partitions.partitions(params: given).count
            } catch {
                throw RunError(error)
            }
            guard count > partitions.maxPartitions else { continue }
            throw RunError(
                .partitionLimit,
                "'\(param)' gives \(count) values, one partition each, but manager '\(ref.name)' runs at most "
                    + "max_partitions: \(partitions.maxPartitions) (its for_each at \(pipeline.file):\(partitions.location)); "
                    + "raise it there or give fewer values",
                manager: ref.name)
        }
    }

    /// Refuses files that would overwrite each other or an input (see ``PathCollisions``):
    /// outputs, the dead-letter file, `stateFile` and ``RunOptions/alsoWrites``.
    private func checkPaths(of plan: RunPlan, stateFile: String?) throws(RunError) {
        var paths = PathCollisions()
        for (index, output) in plan.outputs.enumerated() {
            if let table = output.table {
                guard table.engine == .sqlite else { continue }
                // Tables of one database share it: it is named once.
                let database = OutputRuntime.resolve(table.database, options: options)
                guard !paths.writes.contains(where: { $0.path == database }) else { continue }
                paths.writes.append(.init(path: database, what: "the database of output \(index + 1) of run '\(plan.name)'"))
                continue
            }
            guard let path = OutputRuntime.path(of: output, options: options) else { continue }
            let what = output.path == nil ? "--output" : "output \(index + 1) of run '\(plan.name)'"
            paths.writes.append(.init(path: path, what: what))
        }
        paths.writes.append(.init(path: deadLetterPath, what: "the dead-letter file"))
        if let stateFile { paths.writes.append(.init(path: stateFile, what: "the state file")) }
        for file in options.alsoWrites { paths.writes.append(.init(path: file.path, what: file.what)) }
        paths.reads.append(.init(path: pipeline.file, what: "the pipeline file"))
        for input in options.inputs {
            let files: [String]
            do { files = try InputFiles.expand(input.path, manager: input.manager) } catch { throw RunError(error) }
            for file in files {
                paths.reads.append(.init(path: InputFiles.file(of: file), what: "an input of manager '\(input.manager)'"))
            }
        }
        for input in options.taggedInputs {
            paths.reads.append(.init(path: InputRange.parse(input)?.path ?? input, what: "a tagged input"))
        }
        try paths.check()
        try checkPostgresInputs(of: plan)
    }

    /// Locks the files the run writes (``RunLock``): its file outputs and, when it has
    /// incremental managers, the state file. (Not the dead-letter file: runs in one folder share
    /// the default one, and most reject nothing; two that do each move the other's file aside
    /// rather than replace it, see ``DeadLetter``.)
    private func takeLock(of plan: RunPlan) throws(RunError) -> RunLock {
        var paths: [(path: String, what: String)] = []
        for (index, output) in plan.outputs.enumerated() {
            guard output.table == nil, let path = OutputRuntime.path(of: output, options: options) else { continue }
            paths.append((path, output.path == nil ? "--output" : "output \(index + 1) of run '\(plan.name)'"))
        }
        if !options.isBatch, !options.ignoresState,
            landingOrder(of: plan).contains(where: { pipeline.managers[$0.index].incremental != nil })
        {
            paths.append((StateStore.path(of: pipeline, options: options), "the state file"))
        }
        return try RunLock.take(paths, wait: options.waitsForLock, stop: options.stop) { message in options.logger?.notice("\(message)") }
    }

    /// Refuses an input that reads a PostgreSQL table the run loads: its read would wait for the
    /// run's own transaction (which holds the table) forever.
    private func checkPostgresInputs(of plan: RunPlan) throws(RunError) {
        for input in options.inputs {
            guard let address = TableAddress(input.path), address.engine == .postgres else { continue }
            for (index, output) in plan.outputs.enumerated() {
                guard let table = output.table, table.engine == .postgres,
                    let loaded = try? OutputRuntime.database(of: table, options: options),
                    loaded == address.database, address.table.map({ $0.lowercased() == table.name.lowercased() }) ?? true
                else { continue }
                throw RunError(
                    .pathCollision,
                    "the input \(address) of manager '\(input.manager)' is table '\(table.name)', which output \(index + 1) of run "
                        + "'\(plan.name)' loads; a run cannot read the table it is loading: load another table, or copy it first",
                    manager: input.manager)
            }
        }
    }

    /// The outputs (each with its chain and temporary file) and the dead-letter file of `plan`.
    func prepare(_ plan: RunPlan, incremental: IncrementalRun?) throws(RunError) -> RunState {
        var outputs: [OutputRuntime] = []
        // An HTML page without a row shape is named after the pipeline (`name:`, else its file).
        let file = pipeline.file.split(separator: "/").last.map(String.init) ?? pipeline.file
        let title = pipeline.name.isEmpty ? String(file.hasSuffix(".yaml") ? file.dropLast(5) : file[...]) : pipeline.name
        // A table's schema log names the run as its state does, or by the file when it has no name.
        let logName = pipeline.name.isEmpty ? file : StateStore.stateName(of: pipeline, options: options)
        let tables = DatabaseTransactions()
        tables.rollsBackPostgres = options.rollsBackPostgres
        let executions = outputExecutions(of: plan, incremental: incremental != nil)
        for (index, execution) in executions.enumerated() {
            var file: OutputFile?
            if let target = incremental?.targets.first(where: { $0.output == index }) {
                do { file = try OutputFile.resumable(target: target.written, displayPath: target.path, offset: target.offset) } catch {
                    throw RunError(error)
                }
            }
            do {
                var output = try OutputRuntime(
                    execution, options: options, managers: plan.managers, file: file, title: title, pipeline: logName,
                    transactions: tables)
                if let watch = options.watch { output.watch(by: watch, as: index) }
                outputs.append(output)
            } catch {
                for output in outputs { output.file?.abandon() }
                tables.rollbackAll()
                throw error
            }
        }
        var state = RunState(
            plan: plan, outputs: outputs, tables: tables, deadLetter: DeadLetter(path: deadLetterPath),
            stats: options.collectsStats ? RunStats() : nil, started: MonotonicClock.now())
        state.incremental = incremental
        state.outputExecutions = executions
        return state
    }

    /// Lands every manager of the run in order (in batch mode, only those given an `--input`).
    func landManagers(into state: inout RunState) throws(RunError) {
        let sources = try LandingSources(replay: replayTransport(for: state.plan), clients: serviceClients(for: state.plan))
        try checkResumeOrigins(state.incremental, clients: sources.clients)
        let batch = options.isBatch
        state.children = children(in: state.plan)
        let order = landingOrder(of: state.plan)
        state.parentsOnly = parentsOnly(of: state.plan, order: order)
        // Every tier decision of the run, made once here.
        let incremental = state.incremental
        state.executions = try managerExecutions(
            of: order, children: state.children, parentsOnly: state.parentsOnly,
            isIncremental: { incremental?.isIncremental($0.name) == true }, outputs: state.outputExecutions)
        if state.stats != nil {
            state.explained = describe(state.plan, outputs: state.outputExecutions, order: order, executions: state.executions)
        }
        // Live managers that need no other manager's records start fetching now, side by side;
        // their records still land in run order.
        var prepared: [Int: (ManagerLanding, ProgressMeter?)] = [:]
        if !batch {
            for ref in order.dropFirst() {
                let manager = pipeline.managers[ref.index]
                guard isLive(manager), manager.partitions?.parent == nil else { continue }
                prepared[ref.index] = try landing(of: ref, sources: sources, into: &state)
            }
        }
        for ref in order {
            if let stop = state.stopBefore, ref.index == stop { break }
            // A manager that does not fan out is all of shard 0's work (the others would repeat it).
            // (A manager given --input files reads them in every shard: they are the task's own.)
            if let shard = options.shard, shard.index > 0, pipeline.managers[ref.index].partitions == nil,
                !options.hasInput(for: ref.name)
            {
                if state.children[ref.index] != nil {
                    // Its records make this shard's partitions; its output is shard 0's.
                    state.parentsOnly.insert(ref.index)
                } else if !state.parentsOnly.contains(ref.index) {
                    state.summary.otherShard.append(ref.name)
                    continue
                }
            }
            if batch && !options.hasInput(for: ref.name) {
                state.summary.skipped.append(ref.name)
                continue
            }
            let started = MonotonicClock.now()
            let (count, bytes) = try land(ref, sources: sources, prepared: prepared.removeValue(forKey: ref.index), into: &state)
            state.summary.landed.append((ref.name, count))
            state.stats?.managers.append(.init(name: ref.name, records: count, bytes: bytes, seconds: MonotonicClock.now() - started))
        }
    }

    /// Refuses a saved resume request (a killed run's checkpoint) on another origin than its
    /// service's `base_url` now: the pipeline's `base_url` changed since, or the state file was
    /// edited — either way the service's credentials must not go there (reliability audit M2).
    private func checkResumeOrigins(_ incremental: IncrementalRun?, clients: [String: ServiceClient]) throws(RunError) {
        guard let incremental else { return }
        for (manager, partition, origin) in incremental.resumeOrigins {
            guard let index = pipeline.managers.firstIndex(where: { $0.ref.name == manager }),
                let service = pipeline.managers[index].service, let client = clients[service]
            else { continue }
            let absolute = Redirects.absoluteOrigin(origin, base: client.baseURL)
            guard !Redirects.isSameOrigin(absolute, client.baseURL) else { continue }
            throw RunError(
                .source,
                "the state file \(StateStore.path(of: pipeline, options: options)) resumes manager '\(manager)'"
                    + (partition.isEmpty ? "" : " (partition \(partition))") + " on \(client.redact(absolute)), which is not the origin of "
                    + "service '\(service)' (\(client.redact(client.baseURL))): its base_url changed since the run that saved it stopped, or "
                    + "the file was edited; nothing was sent there. Run with --full-refresh to start again, or "
                    + "'reform state reset \(pipeline.file) --manager \(manager)'",
                manager: manager)
        }
    }

    /// Ends every output's chain (sorts and buffers flush) into its temporary file.
    private func finishOutputs(of state: inout RunState) throws(RunError) {
        for i in state.outputs.indices {
            do { try state.outputs[i].finish(deadLetter: state.deadLetter) } catch { throw RunError(error) }
            state.summary.writtenDirectly -= state.outputs[i].refusedDirectly
        }
    }

    /// Drops every output and recording of a failed run, keeps the dead-letter file, and returns
    /// `error` saying where the rejected records are.
    func abandon(_ state: RunState, after error: RunError) -> RunError {
        var error = error
        // A reader or a page feed that stopped because the run was asked to reports it as its
        // own failure: it is the run's interruption.
        if let reason = options.stop.reason, error.code != .interrupted {
            error = RunError(.interrupted, "\(reason); nothing was written", manager: error.manager, cause: error)
        }
        // A failure comes between pages (the next one could not be fetched); a signal may come in
        // the middle of one, whose records are then partly written: the last checkpoint stands.
        // (A run into tables keeps no checkpoint: its rows and state roll back together.)
        let checkpoints = state.incremental.map { $0.tableState == nil } ?? false
        if checkpoints, error.code != .output { error.keepsCheckpoint = true }
        if let incremental = state.incremental, checkpoints, error.code != .output, error.code != .interrupted {
            // What landed before the failure is kept: the next run goes on from here.
            do {
                try incremental.checkpoint(state.outputs)
                options.logger?.info("checkpoint saved after a failure", metadata: ["error": .string(error.code.description)])
                error = error.adding("; the records landed before it are kept, and the next run resumes from there")
            } catch {}
        }
        for output in state.outputs { output.file?.abandon() }
        state.tables.rollbackAll()
        for recorder in state.recorders { recorder.abandon() }
        var failure = error
        do throws(OutputError) {
            try state.deadLetter.commit()
            if state.deadLetter.count > 0 { failure.deadLetter = (state.deadLetter.path, state.deadLetter.count) }
        } catch {
            failure = failure.adding("; the dead-letter file could not be kept either: \(error)")
        }
        return failure
    }

    /// Puts every output, recording and the dead-letter file in place: all outputs or none (a
    /// failed rename puts back the ones already replaced). The files go in place first, their old
    /// versions kept aside; then the tables commit, and a database that cannot commit (another
    /// writer, a full disk) has the old files put back — so files and tables land together or
    /// not at all (reliability audit M8).
    func commit(_ state: RunState) throws(RunError) {
        let files = state.outputs.compactMap(\.file)
        do throws(OutputError) {
            let placed: OutputFile.Placed
            do { placed = try OutputFile.placeAll(files) } catch {
                state.tables.rollbackAll()
                throw error
            }
            do { try state.tables.commitAll() } catch {
                let restored = placed.putBack()
                throw error.describingRollback(restored)
            }
            placed.finish()
            for recorder in state.recorders { try recorder.commit() }
            try state.deadLetter.commit()
            if state.deadLetter.count == 0 { state.deadLetter.moveEarlierAsideIfClean() }
        } catch {
            try? state.deadLetter.commit()
            var failure = RunError(error)
            if state.deadLetter.count > 0 { failure.deadLetter = (state.deadLetter.path, state.deadLetter.count) }
            throw failure
        }
    }

    /// The counts of a committed run, with its stats when they were asked for.
    func summary(of state: RunState) -> RunSummary {
        var summary = state.summary
        summary.alreadyLanded = state.incremental?.skippedAsSeen ?? 0
        summary.warnings += state.incremental?.warnings ?? []
        summary.recorded = state.recorders.map { ($0.folder, $0.count) }
        summary.written = state.outputs.map { ($0.displayName, $0.written) }
        for output in state.outputs {
            guard let table = output.table else { continue }
            for (column, from) in table.widened {
                summary.tableChanges.append(
                    "\(output.displayName): widened column \(column.name) from \(from) to \(table.declaredType(of: column)), "
                        + "schema: evolve, widen: true")
            }
            for column in table.added {
                summary.tableChanges.append(
                    "\(output.displayName): added column \(column.name) (\(table.declaredType(of: column))), schema: evolve")
            }
            if table.discardedValues > 0 { summary.discardedValues.append((output.displayName, table.discardedValues)) }
            for child in output.childLoads {
                for column in child.widened {
                    summary.tableChanges.append(
                        "\(child.table): widened column \(column.name) from \(column.from) to \(column.to), schema: evolve, widen: true")
                }
                for column in child.added {
                    summary.tableChanges.append("\(child.table): added column \(column.name) (\(column.type)), schema: evolve")
                }
                summary.childRows.append((child.table, child.rows))
                if child.discardedValues > 0 { summary.discardedValues.append((child.table, child.discardedValues)) }
            }
        }
        summary.rolledBack = state.tables.rolledBack
        summary.rejected = state.deadLetter.count
        summary.deadLetterPath = state.deadLetter.count > 0 ? state.deadLetter.path : nil
        summary.earlierDeadLetter = state.deadLetter.movedEarlier
        if var stats = state.stats {
            for (index, output) in state.outputs.enumerated() {
                for (position, (name, counts)) in zip(output.stageNames, output.stageCounts).enumerated() {
                    stats.steps.append(
                        .init(
                            output: index, reformer: name, recordsIn: counts.recordsIn, recordsOut: counts.recordsOut,
                            rejected: counts.rejected, seconds: counts.seconds, onLines: output.stagesOnLines[position]))
                }
            }
            for i in stats.managers.indices {
                stats.managers[i].paging = summary.paging.first { $0.manager == stats.managers[i].name }
            }
            stats.plan = state.explained
            stats.writtenDirectly = summary.writtenDirectly
            stats.jobs = options.jobs
            stats.seconds = MonotonicClock.now() - state.started
            stats.recordsIn = summary.recordsIn
            stats.recordsOut = summary.written.reduce(0) { $0 + $1.count }
            stats.rejected = summary.rejected
            stats.peakMemoryBytes = RunStats.currentPeakMemory()
            summary.stats = stats
        }
        return summary
    }
}
