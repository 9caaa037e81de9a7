public import Logging
import ReformConcurrency
import ReformSDK

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
    /// The service's rate limit as its responses report it.
    let rateLimit = RateLimitGate()
    /// The bound on requests in flight to the service (`connections:`), when declared.
    let connections: ConnectionLimit?
    /// Where requests, retries and waits are logged (secrets redacted); `nil` logs nothing.
    let logger: Logger?
    /// What its waits (retries, rate limits) go by.
    let clock: any RunClock

    /// A client for `service` in environment `env` (`nil`: `default`), sending through `transport`;
    /// `interceptors` run after the service's declared ones; `logger`, when given, hears of every
    /// request, retry and wait (secrets redacted). Throws when the environment has no base URL or
    /// the base URL's variables are unset. Retries and rate limits wait by `clock`.
    public init(
        service: ServicePlan, environment: [String: String], env: String? = nil, transport: any Transport = LiveTransport(),
        interceptors: [any Interceptor] = [], events: EventHub = EventHub(), logger: Logger? = nil, clock: any RunClock = SystemClock()
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
        self.logger = logger
        self.clock = clock
        connections = service.connections.map { ConnectionLimit(limit: $0) }
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

    /// `request` without the query items and headers that hold one of the service's secrets (an
    /// API key a server echoed into a next-page link), and without the API key parameter its
    /// `auth` adds: what may be saved in a state file. The client adds its credentials again
    /// when the request is sent.
    func withoutSecrets(_ request: HTTPRequest) -> HTTPRequest {
        var request = request
        var keyInQuery: String?
        if case .apiKey(let name, true, _)? = service.auth { keyInQuery = name }
        request.query.removeAll { $0.name == keyInQuery || redactor.reveals($0.value) || redactor.reveals($0.name) }
        request.headers.removeAll { redactor.reveals($0.value) }
        if let origin = request.origin { request.origin = redactor.redact(origin) }
        request.path = redactor.redact(request.path)
        return request
    }

    func cancelled(_ manager: ManagerPlan, _ request: HTTPRequest) -> ManagerError {
        ManagerError(.cancelled, manager: manager.ref.name, request: request.matchKey, message: "cancelled")
    }

    private func resolve(_ template: InterpolatedString, _ what: String, manager: ManagerRef, request: HTTPRequest) throws(ManagerError)
        -> String
    {
        do { return try template.resolve(in: environment, secret: true) } catch {
            throw ManagerError(
                .configuration, manager: manager.name, request: request.matchKey,
                message: "\(what) of service '\(service.name)': \(error.message)")
        }
    }

    func applyHeaders(to outgoing: inout HTTPRequest, manager: ManagerRef, request: HTTPRequest) throws(ManagerError) {
        for header in service.headers {
            outgoing.setHeader(header.name, try resolve(header.value, "header '\(header.name)'", manager: manager, request: request))
        }
        if outgoing.header("accept") == nil { outgoing.setHeader("Accept", "application/json") }
        if outgoing.header("accept-encoding") == nil { outgoing.setHeader("Accept-Encoding", ContentDecoding.accepted) }
    }

    /// Adds the credentials; returns the OAuth2 token used, if any.
    func applyAuth(to outgoing: inout HTTPRequest, manager: ManagerRef, request: HTTPRequest) async throws(ManagerError) -> String? {
        switch service.auth {
        case nil:
            return nil
        case .bearer(let token)?:
            outgoing.setHeader("Authorization", "Bearer " + (try resolve(token, "'auth.bearer'", manager: manager, request: request)))
        case .basic(let user, let password)?:
            let pair =
                try resolve(user, "'auth.basic.user'", manager: manager, request: request) + ":"
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
