import ReformConcurrency
public import ReformSDK

/// The intensive core (seeds/004): everything that is the same for every API of one service —
/// base URL, shared headers, auth and token refresh, interceptors, sending, retries, events —
/// lives here once. Managers bring only what is particular to them.
public final class ServiceClient: Sendable {
    /// The service.
    public let service: ServicePlan
    /// The base URL for the chosen environment, resolved.
    public let baseURL: String
    /// Cross-layer signals from this service's calls.
    public let events: EventHub
    let environment: [String: String]
    let transport: any Transport
    let interceptors: [any Interceptor]
    let tokens: TokenStore?
    let redactor: Redactor

    /// A client for `service` in environment `env` (`nil`: `default`), sending through `transport`;
    /// `interceptors` run after the service's declared ones. Throws when the environment has no
    /// base URL or the base URL's variables are unset.
    public init(
        service: ServicePlan, environment: [String: String], env: String? = nil, transport: any Transport = LiveTransport(),
        interceptors: [any Interceptor] = [], events: EventHub = EventHub()
    ) throws(ManagerError) {
        let name = env ?? "default"
        guard let template = service.baseURLs[name] else {
            throw ManagerError(
                .configuration, manager: "-", request: nil,
                message: "service '\(service.name)' has no base URL for environment '\(name)' "
                    + "(it has: \(service.environments.joined(separator: ", "))); add it under 'base_url' or pick another --env")
        }
        do { baseURL = try template.resolve(in: environment) } catch {
            throw ManagerError(
                .configuration, manager: "-", request: nil, message: "base URL of service '\(service.name)': \(error.message)")
        }
        self.service = service
        self.environment = environment
        self.transport = transport
        self.events = events
        self.interceptors = service.interceptors.map { $0.make(environment: environment) } + interceptors
        redactor = Redactor(service: service, environment: environment)
        if case .oauth2(let plan)? = service.auth {
            tokens = TokenStore(
                plan: plan, service: service.name, baseURL: baseURL, environment: environment, transport: transport,
                events: events)
        } else {
            tokens = nil
        }
    }

    /// `text` with this service's secret values replaced by `***`.
    public func redact(_ text: String) -> String { redactor.redact(text) }

    /// Sends the loader's next request with auth, interceptors and retries, counting every call
    /// against the manager's budget. A retryable failure that stays failing throws after the last
    /// attempt; other statuses come back for the loader to judge.
    ///
    /// `extraSecrets` are the manager's own (its interceptors'): headers holding them, like those
    /// holding the service's, are not sent to another origin after a redirect.
    func send(
        _ request: HTTPRequest, loader: inout PageLoader, extra: [any Interceptor], extraSecrets: Redactor? = nil
    ) async throws(ManagerError) -> HTTPResponse {
        let manager = loader.manager
        let retry = manager.retry ?? service.retry ?? .none
        let chain = interceptors + extra
        var attempt = 0
        var refreshed = false
        while true {
            attempt += 1
            if Task.isCancelled { throw cancelled(manager, request) }
            try loader.spendCall()
            let context = CallContext(manager: manager.ref, service: service.name, attempt: attempt, redact: redactor.redact)
            var outgoing = request
            if outgoing.origin == nil { outgoing.baseURL = baseURL }
            outgoing.timeout = manager.timeout ?? service.timeout ?? 60
            for interceptor in chain where !(await interceptor.shouldCall(outgoing, context: context)) {
                throw ManagerError(.vetoed, manager: manager.ref.name, request: request.matchKey, message: "an interceptor vetoed the call")
            }
            for interceptor in chain { outgoing = try await interceptor.adapt(outgoing, context: context) }
            try applyHeaders(to: &outgoing, manager: manager.ref, request: request)
            let token = try await applyAuth(to: &outgoing, manager: manager.ref, request: request)
            for interceptor in chain { outgoing = try await interceptor.finalize(outgoing, context: context) }
            let managerSecrets = extraSecrets.flatMap { $0.secrets.isEmpty ? nil : $0 }
            if !redactor.secrets.isEmpty || managerSecrets != nil {
                outgoing.credentialHeaders = Set(
                    outgoing.headers.filter { redactor.reveals($0.value) || managerSecrets?.reveals($0.value) == true }
                        .map { $0.name.lowercased() })
            }
            let started = MonotonicClock.now()
            let result: Result<HTTPResponse, TransportError>
            do { result = .success(try await transport.send(outgoing, for: manager.ref)) } catch { result = .failure(error) }
            let seconds = MonotonicClock.now() - started
            for interceptor in chain { await interceptor.afterCall(outgoing, result: result, seconds: seconds, context: context) }
            var proposal: RetryDecision
            switch result {
            case .success(let response):
                if response.status == 401, let tokens, let token, !refreshed {
                    refreshed = true
                    events.emit(.credentialsRejected(service: service.name, manager: manager.ref.name, status: 401))
                    _ = try await tokens.refresh(after: token, for: manager.ref)
                    attempt -= 1
                    continue
                }
                if response.status == 401 || response.status == 403 {
                    events.emit(.credentialsRejected(service: service.name, manager: manager.ref.name, status: response.status))
                }
                let retryAfter = response.header("retry-after").flatMap { RetryAfter.seconds($0, now: RetryAfter.now()) }
                if response.status == 429 {
                    events.emit(.rateLimited(service: service.name, manager: manager.ref.name, retryAfter: retryAfter))
                }
                guard retry.retries(status: response.status), !manager.expect.status.contains(response.status) else {
                    return response
                }
                proposal = RetryDecision(
                    retry: attempt < retry.attempts && retry.allows(method: request.method),
                    wait: retryAfter ?? retry.backoff(beforeAttempt: attempt + 1), reason: "status \(response.status)",
                    attempt: attempt)
                if let retryAfter, retryAfter > retry.max { proposal.retry = false }
                for interceptor in chain { proposal = await interceptor.retryDecision(proposal, context: context) }
                guard proposal.retry else {
                    throw ManagerError(
                        .httpStatus, manager: manager.ref.name, request: request,
                        message: gaveUp(proposal, retry: retry, method: request.method, retryAfter: retryAfter), response: response)
                }
            case .failure(let error):
                if error.kind == .cancelled { throw cancelled(manager, request) }
                if error.kind == .unreachable {
                    events.emit(.unreachable(service: service.name, manager: manager.ref.name, message: redactor.redact(error.message)))
                }
                proposal = RetryDecision(
                    retry: retry.retries(error.kind) && attempt < retry.attempts && retry.allows(method: request.method),
                    wait: retry.backoff(beforeAttempt: attempt + 1), reason: error.kind.rawValue, attempt: attempt)
                for interceptor in chain { proposal = await interceptor.retryDecision(proposal, context: context) }
                guard proposal.retry else {
                    let failure = ManagerError(error)
                    let note = attempt > 1 ? " (after \(attempt) attempts)" : ""
                    throw ManagerError(
                        failure.kind, manager: manager.ref.name, request: request.matchKey,
                        message: redactor.redact(failure.message) + note)
                }
            }
            do { try await Task.sleep(for: .seconds(saturating: proposal.wait)) } catch {
                throw cancelled(manager, request)
            }
        }
    }

    private func gaveUp(_ decision: RetryDecision, retry: RetryPlan, method: String, retryAfter: Double?) -> String {
        if let retryAfter, retryAfter > retry.max {
            return "\(decision.reason): the service asks to wait \(Int(retryAfter)) s (Retry-After), longer than retry.max "
                + "(\(retry.max) s); raise retry.max or try later"
        }
        if !retry.allows(method: method) {
            return "\(decision.reason): \(method) is not retried (not idempotent); list it in retry.methods to allow it"
        }
        if decision.attempt >= retry.attempts {
            return "\(decision.reason) after \(decision.attempt) attempt\(decision.attempt == 1 ? "" : "s")"
                + (retry.attempts == 1 ? "; declare 'retry:' on the service to try again" : " (retry.attempts)")
        }
        return "\(decision.reason): an interceptor decided not to retry"
    }

    private func cancelled(_ manager: ManagerPlan, _ request: HTTPRequest) -> ManagerError {
        ManagerError(.cancelled, manager: manager.ref.name, request: request.matchKey, message: "cancelled")
    }

    private func resolve(_ template: InterpolatedString, _ what: String, manager: ManagerRef, request: HTTPRequest) throws(ManagerError) -> String {
        do { return try template.resolve(in: environment, secret: true) } catch {
            throw ManagerError(
                .configuration, manager: manager.name, request: request.matchKey,
                message: "\(what) of service '\(service.name)': \(error.message)")
        }
    }

    private func applyHeaders(to outgoing: inout HTTPRequest, manager: ManagerRef, request: HTTPRequest) throws(ManagerError) {
        for header in service.headers {
            outgoing.setHeader(header.name, try resolve(header.value, "header '\(header.name)'", manager: manager, request: request))
        }
        if outgoing.header("accept") == nil { outgoing.setHeader("Accept", "application/json") }
    }

    /// Adds the credentials; returns the OAuth2 token used, if any.
    private func applyAuth(to outgoing: inout HTTPRequest, manager: ManagerRef, request: HTTPRequest) async throws(ManagerError) -> String? {
        switch service.auth {
        case nil:
            return nil
        case .bearer(let token)?:
            outgoing.setHeader("Authorization", "Bearer " + (try resolve(token, "'auth.bearer'", manager: manager, request: request)))
        case .basic(let user, let password)?:
            let pair = try resolve(user, "'auth.basic.user'", manager: manager, request: request) + ":"
                + (try resolve(password, "'auth.basic.password'", manager: manager, request: request))
            outgoing.setHeader("Authorization", "Basic " + Base64.encode(pair.utf8))
        case .apiKey(let name, let inQuery, let value)?:
            let key = try resolve(value, "'auth.api_key'", manager: manager, request: request)
            if inQuery { outgoing.query.append(QueryItem(name: name, value: key)) } else { outgoing.setHeader(name, key) }
        case .oauth2?:
            guard let tokens else { return nil }
            let token = try await tokens.current(for: manager)
            outgoing.setHeader("Authorization", "Bearer " + token)
            return token
        }
        return nil
    }
}
