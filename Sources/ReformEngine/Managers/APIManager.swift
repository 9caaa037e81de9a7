import Logging
import ReformConcurrency
public import ReformSDK

/// Receives a manager's landings: one method for success, one for failure (seeds/004). Held
/// weakly: when the consumer goes away, nothing lands on it.
public protocol ManagerDelegate: AnyObject, Sendable {
    /// A page landed.
    func manager(_ manager: APIManager, didLand landing: Landing)
    /// A request failed (cancelled requests are not reported: nobody is waiting for them).
    func manager(_ manager: APIManager, didFail error: ManagerError)
}

/// One API as a library object: discrete, with its own takeoff policy, paging, budget and
/// interceptors, over a shared ``ServiceClient`` core.
///
/// - `load()` fetches the first page (and resets paging); `loadNextPage()` the next one, or `nil`
///   when paging has stopped. The caller never counts pages.
/// - A second request while one is in flight follows the manager's ``TakeoffPolicy``: `ignore-new`
///   joins the flying request (the server sees one), `cancel-in-flight` cancels it (its connection
///   is closed; its caller gets `cancelled`; nothing of it lands), `parallel` sends both.
/// - Releasing the manager cancels its requests: nothing lands afterwards.
public final class APIManager: Sendable {
    /// The manager's plan.
    public let plan: ManagerPlan
    /// The service core it sends through.
    public let client: ServiceClient
    private let params: [String: Value]
    private let interceptors: [any Interceptor]
    private let cache: ResponseCache?
    private let redactor: Redactor
    private let state = Guarded(State())
    /// Where `load()` starts instead of the first page: a request and the pages landed before it
    /// (a run resuming from a checkpoint).
    public let resumeAt: (request: HTTPRequest, pagesDone: Int)?
    /// Whether bodies the plan streams (``ManagerPlan/streamsBodies``: an export's result files, a
    /// download that does not page) go to disk, their pages landing a ``Landing/recordFile`` to
    /// read instead of ``Landing/records``. Off unless asked for: every page then holds its records
    /// (each body within the transport's limit), as a caller reading `records` expects.
    public let streamsBodies: Bool

    private struct Flight {
        let task: Task<Landing, any Error>
    }

    private struct State {
        var loader: PageLoader?
        var generation = 0
        var flights: [Int: Flight] = [:]
        var nextFlight = 0
        weak var delegate: (any ManagerDelegate)?
    }

    /// A manager for `plan` sending through `client` with `params`; `interceptors` run after the
    /// plan's declared ones; `cache` is used when the plan declares one (`nil`: no caching);
    /// `streamsBodies` sends the bodies the plan streams to disk (see ``streamsBodies``).
    public init(
        plan: ManagerPlan, client: ServiceClient, params: [String: Value] = [:], interceptors: [any Interceptor] = [],
        cache: ResponseCache? = nil, resumeAt: (request: HTTPRequest, pagesDone: Int)? = nil, streamsBodies: Bool = false
    ) {
        self.resumeAt = resumeAt
        self.streamsBodies = streamsBodies
        self.plan = plan
        self.client = client
        self.params = params
        self.interceptors = plan.interceptors.map { $0.make(environment: client.environment) } + interceptors
        self.cache = plan.cache == nil ? nil : cache
        redactor = Redactor(interceptors: plan.interceptors, environment: client.environment)
    }

    /// `text` with the secrets of this manager's interceptors and of its service replaced by `***`.
    @Sendable public func redact(_ text: String) -> String { redactor.redact(client.redact(text)) }

    deinit {
        for flight in state.withLock({ $0.flights.values }) { flight.task.cancel() }
    }

    /// The consumer landings and failures are delivered to (weakly held).
    public var delegate: (any ManagerDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// Whether paging has stopped (or nothing was loaded yet).
    public var isFinished: Bool { state.withLock { $0.loader?.nextRequest == nil } }

    /// What the current paging has spent so far (pages, records, calls).
    public var spent: BudgetMeter { state.withLock { $0.loader?.spent ?? BudgetMeter() } }

    /// How many requests are in flight.
    public var requestsInFlight: Int { state.withLock { $0.flights.count } }

    /// Fetches the first page, resetting paging; also delivered to the delegate.
    @discardableResult
    public func load() async throws(ManagerError) -> Landing {
        guard let landing = try await wait(for: launch(reset: true)) else {
            throw ManagerError(.configuration, manager: plan.ref.name, request: nil, message: "nothing to load")
        }
        return landing
    }

    /// Fetches the next page, or returns `nil` when paging has stopped; also delivered to the delegate.
    @discardableResult
    public func loadNextPage() async throws(ManagerError) -> Landing? {
        try await wait(for: launch(reset: false))
    }

    /// Starts `load()` without waiting: the result goes to the delegate only.
    public func start() throws(ManagerError) { _ = try launch(reset: true) }

    /// Starts `loadNextPage()` without waiting: the result goes to the delegate only.
    public func startNextPage() throws(ManagerError) { _ = try launch(reset: false) }

    /// Cancels every request in flight: their connections are closed and nothing of them lands.
    public func cancel() {
        let flights = state.withLock { s in
            defer { s.flights.removeAll() }
            return Array(s.flights.values)
        }
        for flight in flights { flight.task.cancel() }
    }

    private func wait(for task: Task<Landing, any Error>?) async throws(ManagerError) -> Landing? {
        guard let task else { return nil }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch let error as ManagerError {
            throw error
        } catch {
            throw ManagerError(.cancelled, manager: plan.ref.name, request: nil, message: "cancelled")
        }
    }

    /// Applies the takeoff policy and starts (or joins) a flight; `nil` when there is no next page.
    private func launch(reset: Bool) throws(ManagerError) -> Task<Landing, any Error>? {
        var fresh: PageLoader?
        if reset {
            // A parameter's error quotes its value, which may be a secret interpolated into it.
            do { fresh = try PageLoader(manager: plan, params: params, clock: client.clock) } catch { throw error.redacted(client.redact) }
            if let resumeAt { fresh?.resume(at: resumeAt.request, pagesDone: resumeAt.pagesDone) }
        }
        return state.withLock { s -> Task<Landing, any Error>? in
            switch plan.takeoff {
            case .ignoreNew:
                if let flying = s.flights.values.first { return flying.task }
            case .cancelInFlight:
                for flight in s.flights.values { flight.task.cancel() }
                s.flights.removeAll()
            case .parallel:
                break
            }
            if let fresh {
                s.loader = fresh
                s.generation += 1
            }
            guard let loader = s.loader, loader.nextRequest != nil else { return nil }
            let id = s.nextFlight
            s.nextFlight += 1
            let generation = s.generation
            // On a blocking executor (a live source fetching ahead) the flight runs there too.
            let task = Task(executorPreference: BlockingExecutor.current) {
                [weak self, client, interceptors, cache, redactor, streamsBodies] () throws -> Landing in
                var loader = loader
                do {
                    let landing = try await APIManager.fetch(
                        &loader, client: client, interceptors: interceptors, secrets: redactor, cache: cache, streamsBodies: streamsBodies)
                    try Task.checkCancellation()
                    guard let self else { throw CancellationError() }
                    self.landed(id: id, generation: generation, loader: loader)
                    await self.deliver(landing)
                    return landing
                } catch let failure as ManagerError where failure.kind != .cancelled && !Task.isCancelled {
                    // A request, a message or a body excerpt may echo a secret; none is ever shown.
                    let error = failure.redacted { redactor.redact(client.redact($0)) }
                    self?.state.withLock { _ = $0.flights.removeValue(forKey: id) }
                    await self?.deliver(error)
                    throw error
                } catch {
                    self?.state.withLock { _ = $0.flights.removeValue(forKey: id) }
                    throw ManagerError(.cancelled, manager: loader.manager.ref.name, request: nil, message: "cancelled")
                }
            }
            s.flights[id] = Flight(task: task)
            return task
        }
    }

    private func landed(id: Int, generation: Int, loader: PageLoader) {
        state.withLock { s in
            s.flights.removeValue(forKey: id)
            if s.generation == generation { s.loader = loader }
        }
    }

    private func deliver(_ landing: Landing) async {
        for interceptor in interceptors { await interceptor.beforeSuccess(landing) }
        if !Task.isCancelled { delegate?.manager(self, didLand: landing) }
        for interceptor in interceptors { await interceptor.afterSuccess(landing) }
    }

    private func deliver(_ error: ManagerError) async {
        for interceptor in interceptors { await interceptor.beforeFailure(error, manager: plan.ref) }
        if !Task.isCancelled { delegate?.manager(self, didFail: error) }
        for interceptor in interceptors { await interceptor.afterFailure(error, manager: plan.ref) }
    }

    /// Sends the loader's next request (or answers it from the cache) and lands the response; a
    /// failure comes back with the service's secrets redacted.
    static func fetch(
        _ loader: inout PageLoader, client: ServiceClient, interceptors: [any Interceptor], secrets: Redactor? = nil,
        cache: ResponseCache?, streamsBodies: Bool = false
    ) async throws(ManagerError) -> Landing {
        do throws(ManagerError) {
            return try await fetchUnredacted(
                &loader, client: client, interceptors: interceptors, secrets: secrets, cache: cache, streamsBodies: streamsBodies)
        } catch {
            // Errors carry request lines, messages and body excerpts, where a secret can appear.
            throw error.redacted(client.redact)
        }
    }

    /// Asks the service to cancel the running export job of a run being stopped, when its `job:`
    /// says how: once, in a task of its own (this one is cancelled), within 2 s; a failure only
    /// logged.
    private static func cancelJob(of loader: PageLoader, client: ServiceClient) async {
        guard var request = loader.jobCancelRequest, !(client.transport is ReplayTransport) else { return }
        request.timeout = 2
        var cancelling = loader
        let outcome = await Task.detached { () async -> String in
            do {
                let response = try await client.send(request, loader: &cancelling, extra: [])
                return "status \(response.status)"
            } catch {
                return "\(error)"
            }
        }.value
        client.logger?.info(
            "export job cancelled", metadata: ["manager": .string(loader.manager.ref.name), "outcome": .string(outcome)])
    }

    private static func fetchUnredacted(
        _ loader: inout PageLoader, client: ServiceClient, interceptors: [any Interceptor], secrets: Redactor?,
        cache: ResponseCache?, streamsBodies: Bool
    ) async throws(ManagerError) -> Landing {
        // An export job: its create request and polls come first, landing no records.
        var steps: [JobStep] = []
        while loader.isJobStep, let step = loader.nextRequest {
            do throws(ManagerError) {
                let answer = try await client.send(step, loader: &loader, extra: interceptors, extraSecrets: secrets)
                steps.append(JobStep(request: step, response: answer))
                let wait = try loader.landJobStep(answer)
                // A replay answers at once: recorded polls are not waited for again.
                guard wait > 0, !(client.transport is ReplayTransport) else { continue }
                do { try await client.clock.sleep(seconds: wait) } catch {
                    throw ManagerError(.cancelled, manager: loader.manager.ref.name, request: step.matchKey, message: "cancelled")
                }
            } catch {
                if error.kind == .cancelled || Task.isCancelled { await cancelJob(of: loader, client: client) }
                throw error
            }
        }
        if loader.finished, let last = steps.last {
            // A job done with no result files.
            var landing = Landing(
                manager: loader.manager.ref, page: loader.pageNumber, records: [], request: last.request, response: last.response,
                cached: false, isLast: true, stopReason: loader.stopReason)
            landing.jobSteps = steps
            return landing
        }
        guard let request = loader.nextRequest else {
            throw ManagerError(.configuration, manager: loader.manager.ref.name, request: nil, message: "paging has stopped")
        }
        let key = cache == nil ? "" : ResponseCache.key(for: request, baseURL: client.baseURL)
        var response: HTTPResponse
        var cached = false
        var seconds: Double?
        if let cache, let ttl = loader.manager.cache?.ttl, let hit = cache.lookup(key, ttl: ttl) {
            response = hit
            cached = true
        } else {
            let sent = MonotonicClock.now()
            var outgoing = request
            if streamsBodies, loader.manager.streamsBodies {
                // A result file or a download goes to disk as it arrives, whatever its size.
                do { outgoing.responseFile = try ResponseFile.temporary() } catch {
                    throw ManagerError(
                        .configuration, manager: loader.manager.ref.name, request: request.matchKey, message: error.description)
                }
            }
            response = try await client.send(outgoing, loader: &loader, extra: interceptors, extraSecrets: secrets)
            seconds = MonotonicClock.now() - sent
        }
        let page = loader.pageNumber
        let records = try loader.land(response)
        client.logger?.debug(
            "page landed",
            metadata: [
                "manager": .string(loader.manager.ref.name), "page": .stringConvertible(page), "records": .stringConvertible(records.count),
                "cached": .stringConvertible(cached),
            ])
        if loader.finished, let reason = loader.stopReason {
            client.logger?.info(
                "paging stopped",
                metadata: [
                    "manager": .string(loader.manager.ref.name), "page": .stringConvertible(page), "reason": .string(reason.description),
                ])
        }
        if let cache, !cached, response.bodyFile == nil, loader.manager.expect.status.contains(response.status) {
            cache.store(response, for: key)
        }
        var landing = Landing(
            manager: loader.manager.ref, page: page, records: records, request: request, response: response, cached: cached,
            isLast: loader.finished, stopReason: loader.stopReason, next: loader.nextRequest, jobSteps: steps, seconds: seconds)
        landing.recordFile = loader.landedFile
        return landing
    }
}
