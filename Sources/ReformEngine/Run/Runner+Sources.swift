@_spi(Engine) import ReformSDK

/// Where each manager's records come from in this run: its `--input` files, its live API (with
/// `--record` folders), or its recorded fixtures.
extension Runner {
    /// What managers land from in this run.
    struct LandingSources {
        /// The recorded exchanges of every manager that replays.
        let replay: ReplayTransport
        /// One client per service a live manager uses.
        let clients: [String: ServiceClient]
    }

    /// How one manager lands: its sources one after the other, or its input files on workers.
    enum ManagerLanding {
        /// Sources read on this thread, in order.
        case sequential([any RecordSource])
        /// NDJSON input files cut into batches for `--jobs` workers.
        case parallel(ParallelLanding, files: [String])
    }

    /// How `ref` lands in this run, with the progress meter that reports it.
    func landing(of ref: ManagerRef, sources landing: LandingSources, into state: inout RunState) throws(RunError)
        -> (ManagerLanding, ProgressMeter?)
    {
        let manager = pipeline.managers[ref.index]
        guard let execution = state.executions[ref.index] else {
            throw RunError(.system, "internal error: manager '\(ref.name)' is not in the run's plan")
        }
        do throws(SourceError) {
            let files = execution.files
            let tagged = options.taggedInputs
            let meter = options.progress.map { report in
                let sizes = (files + tagged).map(InputFiles.size(of:))
                // A manager that reads no file (live, fixtures) has no total to count down to.
                let total = sizes.isEmpty || sizes.contains { $0 == nil } ? nil : sizes.reduce(0) { $0 + ($1 ?? 0) }
                return ProgressMeter(manager: ref.name, totalBytes: total, report: report)
            }
            if execution.parallel {
                let parallel = ParallelLanding(
                    manager: ref, outputs: state.outputs.map(\.plan), lines: execution.lines, projection: execution.projection,
                    options: options, meter: meter)
                return (.parallel(parallel, files: files), meter)
            }
            var sources: [any RecordSource]
            if manager.incremental != nil, manager.partitions == nil, state.incremental?.isDone(ref.name, partition: "") == true {
                // Read to its end before the checkpoint this run resumes from: nothing more to land.
                sources = []
            } else if !files.isEmpty || !tagged.isEmpty {
                sources = try fileSources(files, of: ref, execution: execution, state: state)
                sources += try taggedSources(of: ref, execution: execution, state: state)
            } else if let partitions = manager.partitions {
                sources = [try partitionedSource(manager, partitions, sources: landing, state: &state)]
            } else if isLive(manager), let client = manager.service.flatMap({ landing.clients[$0] }) {
                let recorder = try recorder(for: manager, client: client, recorders: &state.recorders)
                // A few pages ahead: managers fetch side by side while an earlier one lands.
                let live = liveSource(
                    manager, params: sourceParams(manager, partition: "", state: state), client: client,
                    recorder: recorder, ahead: 8, resumeAt: state.incremental?.resumePoint(ref.name, partition: ""))
                follow(live, of: manager, partition: "", state: state, client: client)
                sources = [live]
            } else if manager.fixtures != nil {
                let fixtures = try FixtureSource(
                    manager: manager, params: sourceParams(manager, partition: "", state: state),
                    transport: landing.replay, resumeAt: state.incremental?.resumePoint(ref.name, partition: ""))
                follow(fixtures, of: manager, partition: "", state: state)
                sources = [fixtures]
            } else {
                let live =
                    manager.service == nil ? "" : "pass --live to call its API (or --record to keep what it answers as fixtures), or "
                throw SourceError(
                    manager: ref.name,
                    message: "nothing to read: it has no 'fixtures:' folder to replay; \(live)pass --input \(ref.name)=FILE")
            }
            if let sample = options.sample { sources = [try SampleSource(sources, count: sample)] }
            return (.sequential(sources), meter)
        } catch {
            throw RunError(error)
        }
    }

    /// One source per input file of `ref`, each reading only the fields the chains use and
    /// running on each NDJSON line what the run's plan decided (`execution`). With `tags`, the
    /// files are tagged inputs (``LineTags``).
    private func fileSources(
        _ files: [String], of ref: ManagerRef, execution: ManagerExecution, state: RunState, tags: LineTags? = nil
    ) throws(SourceError) -> [any RecordSource] {
        var sources: [any RecordSource] = []
        for path in files {
            // Each file's source builds its own of what the plan names (they count what they took).
            let fastPath: (any LineFastPath)? =
                if case .prefix = execution.lines {
                    ChainPrefix(for: ref, outputs: state.outputs.map(\.plan), limits: options.recordLimits)
                } else {
                    DirectMapping.make(execution.lines, for: ref, outputs: state.outputs, limits: options.recordLimits)
                }
            if let tags {
                sources.append(
                    try NDJSONSource(
                        path: path, manager: ref.name, projection: execution.projection, fastPath: fastPath,
                        limits: options.recordLimits, tags: tags, stop: options.stop))
            } else {
                sources.append(
                    try InputFiles.open(
                        path, manager: ref.name, projection: execution.projection, fastPath: fastPath, limits: options.recordLimits,
                        stop: options.stop))
            }
        }
        return sources
    }

    /// One source per tagged input (`--tagged-input`), each taking the lines tagged with `ref`'s
    /// name; the run's first manager also reports the lines that belong to none.
    private func taggedSources(of ref: ManagerRef, execution: ManagerExecution, state: RunState) throws(SourceError) -> [any RecordSource] {
        let managers = state.plan.managers.map(\.name)
        let tags = LineTags(manager: ref.name, managers: managers, reportsStrays: managers.first == ref.name)
        return try fileSources(options.taggedInputs, of: ref, execution: execution, state: state, tags: tags)
    }

    /// The run's parameters with the command line's `--param`s over them.
    func params(of plan: RunPlan) -> [String: Value] {
        var params = plan.params
        for (k, v) in options.params { params[k] = v }
        return params
    }

    /// The replay transport for every manager that lands from its fixtures in this run.
    func replayTransport(for plan: RunPlan) throws(RunError) -> ReplayTransport {
        let replayed = landingOrder(of: plan).map { pipeline.managers[$0.index] }.filter { manager in
            !options.hasInput(for: manager.ref.name) && !isLive(manager)
        }
        do throws(SourceError) {
            return try ReplayTransport(managers: replayed) { path, manager throws(SourceError) in
                try InputFiles.document(at: path, manager: manager)
            }
        } catch {
            throw RunError(error)
        }
    }

    /// Whether `manager` lands from its live API in this run.
    func isLive(_ manager: ManagerPlan) -> Bool {
        options.mode != .replay && manager.service != nil
    }

    /// One client per service that a live manager of the run uses (shared: one connection pool,
    /// token and rate limit per service).
    func serviceClients(for plan: RunPlan) throws(RunError) -> [String: ServiceClient] {
        var clients: [String: ServiceClient] = [:]
        let observer = options.onEvent
        var watched: (@Sendable (ServiceEvent) -> Void)? = observer
        if let watch = options.watch {
            watched = { event in
                watch.event(event)
                observer?(event)
            }
        }
        let events = EventHub(observer: watched)
        for ref in landingOrder(of: plan) {
            let manager = pipeline.managers[ref.index]
            guard isLive(manager), !options.hasInput(for: ref.name),
                let name = manager.service, clients[name] == nil,
                let service = pipeline.services.first(where: { $0.name == name })
            else { continue }
            do {
                clients[name] = try ServiceClient(
                    service: service, environment: options.environment, env: options.environmentName,
                    transport: options.transport ?? LiveTransport(maxBodyBytes: options.maxBodyBytes, client: options.httpClient),
                    interceptors: options.interceptors, events: events, logger: options.logger, clock: options.clock)
            } catch {
                throw RunError(.service, error.message, manager: ref.name, cause: error)
            }
        }
        return clients
    }

    /// The `--record` folder writer of a live `manager`, when the run records.
    func recorder(for manager: ManagerPlan, client: ServiceClient, recorders: inout [Recorder]) throws(SourceError) -> Recorder? {
        guard options.mode == .record else { return nil }
        guard let folder = manager.fixtures else {
            throw SourceError(
                manager: manager.ref.name, message: "--record needs a 'fixtures:' folder declared on the manager to record into")
        }
        let redactor = Redactor(interceptors: manager.interceptors, environment: client.environment)
        do {
            let recorder = try Recorder(folder: folder) { redactor.redact(client.redact($0)) }
            recorders.append(recorder)
            return recorder
        } catch {
            throw SourceError(manager: manager.ref.name, message: error.description)
        }
    }

    /// The live source of `manager` with `params`: its API manager, with the response cache when
    /// declared, fetching up to `ahead` pages before they are taken.
    func liveSource(
        _ manager: ManagerPlan, params: [String: Value], client: ServiceClient, recorder: Recorder?, ahead: Int = 2,
        resumeAt: (request: HTTPRequest, pagesDone: Int)? = nil
    ) -> LiveSource {
        var cache: ResponseCache?
        if options.useCache, let plan = manager.cache {
            let folder =
                plan.store == .disk
                ? FilePaths.resolve(".reform-cache/\(manager.ref.name)", against: FilePaths.folder(of: pipeline.file)) : nil
            cache = ResponseCache(folder: folder)
        }
        let api = APIManager(plan: manager, client: client, params: params, cache: cache, resumeAt: resumeAt, streamsBodies: true)
        return LiveSource(manager: api, recorder: recorder, ahead: ahead, stop: options.stop)
    }

    /// The source of a manager that runs once per partition: each partition replayed from the
    /// fixtures, or fetched live (several at once, up to `for_each.concurrency`).
    private func partitionedSource(_ manager: ManagerPlan, _ plan: PartitionPlan, sources landing: LandingSources, state: inout RunState)
        throws(SourceError) -> PartitionedSource
    {
        let base = params(of: state.plan)
        let incremental = manager.incremental == nil ? nil : state.incremental
        // Only the last level of a fan-out is split between shards: a parent's records make every
        // shard's partitions.
        let shard = state.children[manager.ref.index] == nil ? options.shard : nil
        let partitions = try Runner.share(of: partitions(of: manager, plan: plan, params: base, state: state), shard: shard).filter {
            partition in
            // Partitions a resumed run finished before its last checkpoint are not fetched again.
            !(incremental?.isDone(manager.ref.name, partition: partition.label) ?? false)
        }
        let kinds = Dictionary(manager.params.map { ($0.name, $0.kind) }, uniquingKeysWith: { a, _ in a })
        let runState = state
        func partitionParams(_ partition: Partition) -> [String: Value] {
            var params = base
            for (name, value) in partition.params { params[name] = ParamPlan.typed(value, as: kinds[name] ?? nil) }
            return params.merging(incrementalParams(manager, partition.label, runState)) { $1 }
        }
        if isLive(manager), let client = manager.service.flatMap({ landing.clients[$0] }) {
            let recorder = try recorder(for: manager, client: client, recorders: &state.recorders)
            // Partitions after the one being read fetch ahead meanwhile: far enough that they keep
            // their connections busy, bounded so memory stays a few pages per open partition.
            let ahead = plan.concurrency > 1 ? 64 : 2
            let source = PartitionedSource(
                manager: manager.ref.name, inputName: client.redact(client.baseURL + (manager.path ?? "/")), partitions: partitions,
                concurrency: plan.concurrency, policy: plan.onError
            ) { [self] partition in
                let live = liveSource(
                    manager, params: partitionParams(partition), client: client, recorder: recorder, ahead: ahead,
                    resumeAt: incremental?.resumePoint(manager.ref.name, partition: partition.label))
                follow(live, of: manager, partition: partition.label, state: runState, client: client)
                return live
            }
            // The first partitions start fetching now (side by side with managers landing earlier).
            try source.start()
            return source
        }
        let replay = landing.replay
        return PartitionedSource(
            manager: manager.ref.name, inputName: manager.fixtures ?? "fixtures", partitions: partitions, concurrency: 1,
            policy: plan.onError
        ) { [self] partition throws(SourceError) in
            let fixtures = try FixtureSource(
                manager: manager, params: partitionParams(partition), transport: replay,
                resumeAt: incremental?.resumePoint(manager.ref.name, partition: partition.label))
            follow(fixtures, of: manager, partition: partition.label, state: runState)
            return fixtures
        }
    }

    /// The run's parameters, with the cursor parameter when `manager` is incremental.
    private func sourceParams(_ manager: ManagerPlan, partition: String, state: RunState) -> [String: Value] {
        params(of: state.plan).merging(incrementalParams(manager, partition, state)) { $1 }
    }

    /// The cursor parameter an incremental `manager`'s partition sends in this run.
    private func incrementalParams(_ manager: ManagerPlan, _ partition: String, _ state: RunState) -> [String: Value] {
        guard manager.incremental != nil, let incremental = state.incremental else { return [:] }
        return incremental.params(manager.ref.name, partition: partition)
    }

    /// Lets an incremental run follow `source`'s pages (for checkpoints) and its end.
    /// `client`: the live service's, whose secrets never go into the state file (a key a server
    /// echoed into a next-page link is left out; the client adds its credentials when it sends).
    private func follow(
        _ source: some PagedRecordSource, of manager: ManagerPlan, partition: String, state: RunState, client: ServiceClient? = nil
    ) {
        if let watch = options.watch {
            let name = manager.ref.name
            let label = partition.isEmpty ? nil : partition
            let replayed = client == nil
            let redact: @Sendable (String) -> String = { text in client?.redact(text) ?? text }
            source.onPage = { landing in
                watch.page(
                    landing, manager: name, partition: label, replayed: replayed, baseURL: client?.baseURL, seconds: landing.seconds,
                    redact: redact)
            }
            source.onPageFailed = { error, page in
                watch.failedPage(
                    error, page: page, manager: name, partition: label, replayed: replayed, baseURL: client?.baseURL, redact: redact)
            }
        }
        guard manager.incremental != nil, let incremental = state.incremental else { return }
        let name = manager.ref.name
        source.onPageEnd = { next, pages in
            let next = next.map { client?.withoutSecrets($0) ?? $0 }
            incremental.pageEnded(name, partition: partition, next: next, pagesDone: pages)
            if next == nil { incremental.partitionEnded(name, partition: partition) }
        }
    }
}

/// A source that lands pages of an API (replayed or live), and says when each page is used up.
protocol PagedRecordSource: RecordSource {
    /// Called when every record of a page has been handed out: the next page's request (`nil`
    /// when paging stopped) and the pages done.
    var onPageEnd: ((HTTPRequest?, Int) -> Void)? { get set }
    /// Called with each page as it is taken, when the run is watched.
    var onPage: ((Landing) -> Void)? { get set }
    /// Called with the failure that ends the manager's pages (a status it gave up on, a body it
    /// could not read) and the number the page would have had, when the run is watched.
    var onPageFailed: ((ManagerError, Int) -> Void)? { get set }
}

extension FixtureSource: PagedRecordSource {}
extension LiveSource: PagedRecordSource {}
