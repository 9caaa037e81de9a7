import ReformConcurrency
import ReformSDK

/// Executes one run of a pipeline: lands each manager's records, feeds every output's chain,
/// writes outputs atomically and rejected records to the dead-letter file.
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
        guard let plan = pipeline.run(named: options.runName) else {
            let names = pipeline.runs.map(\.name)
            throw RunError(
                "no run called '\(options.runName ?? "default")' in \(pipeline.file)"
                    + Suggestions.hint(for: options.runName ?? "", in: names) + " (runs: \(names.joined(separator: ", ")))")
        }
        for input in options.inputs where !plan.managers.contains(where: { $0.name == input.manager }) {
            throw RunError(
                "--input names manager '\(input.manager)', which run '\(plan.name)' does not use"
                    + Suggestions.hint(for: input.manager, in: plan.managers.map(\.name))
                    + " (its managers: \(plan.managers.map(\.name).joined(separator: ", ")))")
        }
        try checkPaths(of: plan)
        var outputs: [OutputRuntime] = []
        for (index, output) in plan.outputs.enumerated() {
            outputs.append(try OutputRuntime(output, index: index, options: options, managers: plan.managers))
        }
        let deadLetter = DeadLetter(path: deadLetterPath)
        var summary = RunSummary()
        let runStarted = MonotonicClock.now()
        var stats = options.collectsStats ? RunStats() : nil
        var recorders: [Recorder] = []
        do throws(RunError) {
            let transport = try replayTransport(for: plan)
            let clients = try serviceClients(for: plan)
            let batch = !options.inputs.isEmpty
            for ref in plan.managers {
                if batch && !options.inputs.contains(where: { $0.manager == ref.name }) {
                    summary.skipped.append(ref.name)
                    continue
                }
                let started = MonotonicClock.now()
                let (count, bytes) = try land(
                    ref, plan: plan, sources: LandingSources(replay: transport, clients: clients), outputs: &outputs,
                    deadLetter: deadLetter, summary: &summary, recorders: &recorders)
                summary.landed.append((ref.name, count))
                stats?.managers.append(.init(name: ref.name, records: count, bytes: bytes, seconds: MonotonicClock.now() - started))
            }
            for i in outputs.indices {
                do { try outputs[i].finish(deadLetter: deadLetter) } catch { throw RunError(error.description) }
            }
        } catch {
            for output in outputs { output.file.abandon() }
            for recorder in recorders { recorder.abandon() }
            var failure = error
            do throws(OutputError) {
                try deadLetter.commit()
                if deadLetter.count > 0 { failure.deadLetter = (deadLetter.path, deadLetter.count) }
            } catch {
                failure = RunError(failure.message + "; the dead-letter file could not be kept either: \(error)")
            }
            throw failure
        }
        do throws(OutputError) {
            // All outputs or none: a failed rename puts back the ones already replaced.
            try OutputFile.commitAll(outputs.map(\.file))
            for recorder in recorders { try recorder.commit() }
            try deadLetter.commit()
            if deadLetter.count == 0 { deadLetter.removeStale() }
        } catch {
            try? deadLetter.commit()
            var failure = RunError(error.description)
            if deadLetter.count > 0 { failure.deadLetter = (deadLetter.path, deadLetter.count) }
            throw failure
        }
        summary.recorded = recorders.map { ($0.folder, $0.count) }
        summary.written = outputs.map { ($0.file.displayPath, $0.written) }
        summary.rejected = deadLetter.count
        summary.deadLetterPath = deadLetter.count > 0 ? deadLetter.path : nil
        if var stats {
            for (index, output) in outputs.enumerated() {
                for (name, counts) in zip(output.stageNames, output.stageCounts) {
                    stats.steps.append(
                        .init(
                            output: index, reformer: name, recordsIn: counts.recordsIn, recordsOut: counts.recordsOut,
                            rejected: counts.rejected, seconds: counts.seconds))
                }
            }
            stats.writtenDirectly = summary.writtenDirectly
            stats.jobs = options.jobs
            stats.seconds = MonotonicClock.now() - runStarted
            stats.recordsIn = summary.recordsIn
            stats.recordsOut = summary.written.reduce(0) { $0 + $1.count }
            stats.rejected = summary.rejected
            stats.peakMemoryBytes = RunStats.currentPeakMemory()
            summary.stats = stats
        }
        return summary
    }

    /// The dead-letter file's path.
    private var deadLetterPath: String { options.deadLetterPath ?? "reform-dead-letter.ndjson" }

    /// Refuses files that would overwrite each other or an input (see ``PathCollisions``).
    private func checkPaths(of plan: RunPlan) throws(RunError) {
        var paths = PathCollisions()
        for (index, output) in plan.outputs.enumerated() {
            guard let path = OutputRuntime.path(of: output, options: options) else { continue }
            let what = output.path == nil ? "--output" : "output \(index + 1) of run '\(plan.name)'"
            paths.writes.append(.init(path: path, what: what))
        }
        paths.writes.append(.init(path: deadLetterPath, what: "the dead-letter file"))
        paths.reads.append(.init(path: pipeline.file, what: "the pipeline file"))
        for input in options.inputs {
            let files: [String]
            do { files = try InputFiles.expand(input.path, manager: input.manager) } catch { throw RunError(error.description) }
            for file in files { paths.reads.append(.init(path: file, what: "an input of manager '\(input.manager)'")) }
        }
        try paths.check()
    }

    private func replayTransport(for plan: RunPlan) throws(RunError) -> ReplayTransport {
        let replayed = plan.managers.map { pipeline.managers[$0.index] }.filter { manager in
            !options.inputs.contains { $0.manager == manager.ref.name } && !isLive(manager)
        }
        do throws(SourceError) {
            return try ReplayTransport(managers: replayed) { path, manager throws(SourceError) in
                try InputFiles.document(at: path, manager: manager)
            }
        } catch {
            throw RunError("\(error)")
        }
    }

    /// Whether `manager` lands from its live API in this run.
    private func isLive(_ manager: ManagerPlan) -> Bool {
        options.mode != .replay && manager.service != nil
    }

    /// One client per service that a live manager of the run uses (shared: one connection pool,
    /// token and rate limit per service).
    private func serviceClients(for plan: RunPlan) throws(RunError) -> [String: ServiceClient] {
        var clients: [String: ServiceClient] = [:]
        let events = EventHub()
        for ref in plan.managers {
            let manager = pipeline.managers[ref.index]
            guard isLive(manager), !options.inputs.contains(where: { $0.manager == ref.name }),
                let name = manager.service, clients[name] == nil,
                let service = pipeline.services.first(where: { $0.name == name })
            else { continue }
            do {
                clients[name] = try ServiceClient(
                    service: service, environment: options.environment, env: options.environmentName,
                    transport: LiveTransport(maxBodyBytes: options.maxBodyBytes, client: options.httpClient), interceptors: options.interceptors, events: events)
            } catch {
                throw RunError(error.message)
            }
        }
        return clients
    }

    /// Where managers land from in this run.
    private struct LandingSources {
        let replay: ReplayTransport
        let clients: [String: ServiceClient]
    }

    private func liveSource(_ manager: ManagerPlan, plan: RunPlan, client: ServiceClient, recorders: inout [Recorder]) throws(SourceError) -> LiveSource {
        var params = plan.params
        for (k, v) in options.params { params[k] = v }
        var cache: ResponseCache?
        if options.useCache, let plan = manager.cache {
            let folder = plan.store == .disk
                ? FilePaths.resolve(".reform-cache/\(manager.ref.name)", against: FilePaths.folder(of: pipeline.file)) : nil
            cache = ResponseCache(folder: folder)
        }
        let api = APIManager(plan: manager, client: client, params: params, cache: cache)
        var recorder: Recorder?
        if options.mode == .record {
            guard let folder = manager.fixtures else {
                throw SourceError(
                    manager: manager.ref.name, message: "--record needs a 'fixtures:' folder declared on the manager to record into")
            }
            do { recorder = try Recorder(folder: folder, redact: api.redact) } catch {
                throw SourceError(manager: manager.ref.name, message: error.description)
            }
            recorder.map { recorders.append($0) }
        }
        return LiveSource(manager: api, recorder: recorder)
    }

    /// Lands every record of one manager into every output; returns how many landed and the input
    /// bytes read.
    private func land(
        _ ref: ManagerRef, plan: RunPlan, sources landing: LandingSources, outputs: inout [OutputRuntime],
        deadLetter: DeadLetter, summary: inout RunSummary, recorders: inout [Recorder]
    ) throws(RunError) -> (records: Int, bytes: Int) {
        let manager = pipeline.managers[ref.index]
        var files: [String] = []
        var sources: [any RecordSource] = []
        var parallel: ParallelLanding?
        var meter: ProgressMeter?
        let trying = options.limit != nil || options.sample != nil
        do throws(SourceError) {
            for input in options.inputs where input.manager == ref.name {
                files += try InputFiles.expand(input.path, manager: ref.name)
            }
            meter = options.progress.map { report in
                let sizes = files.map(InputFiles.size(of:))
                let total = sizes.contains { $0 == nil } ? nil : sizes.reduce(0) { $0 + ($1 ?? 0) }
                return ProgressMeter(manager: ref.name, totalBytes: total, report: report)
            }
            if ParallelLanding.applies(to: files, outputs: outputs, options: options) {
                parallel = ParallelLanding(manager: ref, outputs: plan.outputs, options: options, meter: meter)
            } else if !files.isEmpty {
                let projection = options.sample == nil ? Runner.projection(for: ref, outputs: plan.outputs) : nil
                for path in files {
                    let direct = options.directWrites && !trying ? DirectMapping.make(for: ref, outputs: outputs, limits: options.recordLimits) : nil
                    sources.append(try InputFiles.open(path, manager: ref.name, projection: projection, direct: direct, limits: options.recordLimits))
                }
            } else if isLive(manager), let client = manager.service.flatMap({ landing.clients[$0] }) {
                sources.append(try liveSource(manager, plan: plan, client: client, recorders: &recorders))
            } else if manager.fixtures != nil {
                var params = plan.params
                for (k, v) in options.params { params[k] = v }
                sources.append(try FixtureSource(manager: manager, params: params, transport: landing.replay))
            } else {
                throw SourceError(
                    manager: ref.name,
                    message: "nothing to read: it has no 'fixtures:' folder; pass --input \(ref.name)=FILE")
            }
            if let sample = options.sample, parallel == nil { sources = [try SampleSource(sources, count: sample)] }
        } catch {
            throw RunError(error.description)
        }
        if let parallel { return try parallel.land(files, into: &outputs, deadLetter: deadLetter, summary: &summary) }
        return try land(ref, from: sources, meter: meter, outputs: &outputs, deadLetter: deadLetter, summary: &summary)
    }

    /// Lands `sources` one after the other on this thread (the single-core path).
    private func land(
        _ ref: ManagerRef, from sources: [any RecordSource], meter: ProgressMeter?, outputs: inout [OutputRuntime],
        deadLetter: DeadLetter, summary: inout RunSummary
    ) throws(RunError) -> (records: Int, bytes: Int) {
        var landedBefore = 0
        var bytes = 0
        var directBefore = 0
        do {
            for source in sources {
                var limitReached = false
                var general = 0
                var bytesOfSource = 0
                source.observeBytes { read in
                    bytesOfSource = read
                    meter?.read(read)
                }
                meter?.handledElsewhere = { [directBefore] in directBefore + source.handledDirectly }
                defer {
                    bytes += bytesOfSource
                    meter?.finishInput()
                }
                while let landed = try source.next() {
                    if let signal = RunInterruption.signal {
                        throw RunError("interrupted by signal \(signal); nothing was written")
                    }
                    if let limit = options.limit, landedBefore + general >= limit {
                        limitReached = true
                        break
                    }
                    general += 1
                    meter?.tick()
                    let sequence = landedBefore + general + source.handledDirectly
                    switch landed {
                    case .record(let value, let line, let page):
                        let record = Record(value, origin: Origin(manager: ref, sequence: sequence, line: line, page: page))
                        for i in outputs.indices {
                            try outputs[i].process(record, inputName: source.inputName, deadLetter: deadLetter, original: source.originalRecord)
                        }
                    case .bad(let line, let error, let text):
                        try deadLetter.add(
                            manager: ref.name, sequence: sequence, input: "\(source.inputName):\(line)", stage: "input",
                            error: error, record: nil, text: text)
                    }
                }
                let direct = source.handledDirectly
                if direct > 0 { outputs[0].countDirect(direct) }
                summary.writtenDirectly += direct
                directBefore += direct
                landedBefore += general + direct
                if limitReached { break }
            }
        } catch let error as RunError {
            throw error
        } catch let error as SourceError {
            throw RunError(error.description)
        } catch let error as OutputError {
            // A write error is the output's, not the manager's: it names the output alone.
            throw RunError(error.description)
        } catch {
            throw RunError(SourceError(manager: ref.name, message: "\(error)").description)
        }
        meter?.finish()
        for case let fixtures as FixtureSource in sources {
            summary.requests += fixtures.answered
            if let reason = fixtures.stopReason { summary.stopped.append((ref.name, reason)) }
        }
        return (landedBefore, bytes)
    }

    /// The top-level fields of `manager`'s records that every output's chain reads, when each chain
    /// starts with a mapping or a plugin that says which fields it reads (so the rest need not be built); `nil` when some output needs whole records.
    static func projection(for manager: ManagerRef, outputs: [OutputPlan]) -> JSONProjection? {
        var keys: [String] = []
        for output in outputs {
            if output.chain.isEmpty, let rows = output.rows {
                // Raw records rendered straight into rows: the row rules say which fields are read.
                let all = PipelineRecord.Rules.all(for: rows)
                for path in (all.byManager[manager.index] ?? all.other).paths {
                    guard let first = path.firstKey else { return nil }
                    keys.append(first)
                }
                continue
            }
            if case .plugin(let plugin)? = output.chain.first?.kind {
                guard let fields = plugin.fieldsRead[manager.index] else { return nil }
                keys += fields
                continue
            }
            guard case .mapping(let mapping)? = output.chain.first?.kind,
                let rules = mapping.perManager[manager.index] ?? mapping.shared
            else { return nil }
            for rule in rules {
                switch rule.source {
                case .path(let path):
                    guard let first = path.firstKey else { return nil }
                    keys.append(first)
                case .template(let template):
                    for path in template.paths {
                        guard let first = path.firstKey else { return nil }
                        keys.append(first)
                    }
                case .constant:
                    break
                }
            }
        }
        return JSONProjection(keys: keys)
    }
}
