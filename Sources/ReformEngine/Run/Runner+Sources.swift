import ReformSDK

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
        do throws(SourceError) {
            var files: [String] = []
            for input in options.inputs where input.manager == ref.name {
                files += try InputFiles.expand(input.path, manager: ref.name)
            }
            let meter = options.progress.map { report in
                let sizes = files.map(InputFiles.size(of:))
                let total = sizes.contains { $0 == nil } ? nil : sizes.reduce(0) { $0 + ($1 ?? 0) }
                return ProgressMeter(manager: ref.name, totalBytes: total, report: report)
            }
            if ParallelLanding.applies(to: files, outputs: state.outputs, options: options) {
                let parallel = ParallelLanding(manager: ref, outputs: state.plan.outputs, options: options, meter: meter)
                return (.parallel(parallel, files: files), meter)
            }
            var sources: [any RecordSource]
            if !files.isEmpty {
                sources = try fileSources(files, of: ref, state: state)
            } else if isLive(manager), let client = manager.service.flatMap({ landing.clients[$0] }) {
                sources = [try liveSource(manager, plan: state.plan, client: client, recorders: &state.recorders)]
            } else if manager.fixtures != nil {
                sources = [try FixtureSource(manager: manager, params: params(of: state.plan), transport: landing.replay)]
            } else {
                throw SourceError(
                    manager: ref.name,
                    message: "nothing to read: it has no 'fixtures:' folder; pass --input \(ref.name)=FILE")
            }
            if let sample = options.sample { sources = [try SampleSource(sources, count: sample)] }
            return (.sequential(sources), meter)
        } catch {
            throw RunError(error)
        }
    }

    /// One source per input file of `ref`, each reading only the fields the chains use and, when
    /// the first output is a plain mapping to NDJSON, writing it directly (the fast path).
    private func fileSources(_ files: [String], of ref: ManagerRef, state: RunState) throws(SourceError) -> [any RecordSource] {
        let trying = options.limit != nil || options.sample != nil
        let projection = options.sample == nil ? InputProjection.make(for: ref, outputs: state.plan.outputs) : nil
        var sources: [any RecordSource] = []
        for path in files {
            let direct =
                options.directWrites && !trying
                ? DirectMapping.make(for: ref, outputs: state.outputs, limits: options.recordLimits) : nil
            sources.append(
                try InputFiles.open(path, manager: ref.name, projection: projection, direct: direct, limits: options.recordLimits))
        }
        return sources
    }

    /// The run's parameters with the command line's `--param`s over them.
    private func params(of plan: RunPlan) -> [String: Value] {
        var params = plan.params
        for (k, v) in options.params { params[k] = v }
        return params
    }

    /// The replay transport for every manager that lands from its fixtures in this run.
    func replayTransport(for plan: RunPlan) throws(RunError) -> ReplayTransport {
        let replayed = plan.managers.map { pipeline.managers[$0.index] }.filter { manager in
            !options.inputs.contains { $0.manager == manager.ref.name } && !isLive(manager)
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
                    transport: options.transport ?? LiveTransport(maxBodyBytes: options.maxBodyBytes, client: options.httpClient),
                    interceptors: options.interceptors, events: events)
            } catch {
                throw RunError(.service, error.message, manager: ref.name, cause: error)
            }
        }
        return clients
    }

    /// The live source of `manager`: its API manager, with the response cache and the `--record`
    /// folder when asked for.
    private func liveSource(_ manager: ManagerPlan, plan: RunPlan, client: ServiceClient, recorders: inout [Recorder])
        throws(SourceError) -> LiveSource
    {
        var cache: ResponseCache?
        if options.useCache, let plan = manager.cache {
            let folder =
                plan.store == .disk
                ? FilePaths.resolve(".reform-cache/\(manager.ref.name)", against: FilePaths.folder(of: pipeline.file)) : nil
            cache = ResponseCache(folder: folder)
        }
        let api = APIManager(plan: manager, client: client, params: params(of: plan), cache: cache)
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
}
