import Logging
import ReformConcurrency
import ReformSDK

/// Sending one request of a manager: each attempt is prepared (interceptors, headers, auth),
/// exchanged (timed, seen by the interceptors), then judged: done, again after a token refresh,
/// or again after a wait; giving up throws a ``ManagerError`` that says why.
extension ServiceClient {
    /// Sends the loader's next request with auth, interceptors and retries, counting every call
    /// against the manager's budget. A retryable failure that stays failing throws after the last
    /// attempt; other statuses come back for the loader to judge.
    ///
    /// `extraSecrets` are the manager's own (its interceptors'): headers holding them, like those
    /// holding the service's, are not sent to another origin after a redirect.
    func send(
        _ request: HTTPRequest, loader: inout PageLoader, extra: [any Interceptor], extraSecrets: Redactor? = nil
    ) async throws(ManagerError) -> HTTPResponse {
        var call = Call(
            manager: loader.manager, request: request, retry: loader.manager.retry ?? service.retry ?? .none,
            chain: interceptors + extra, extraSecrets: extraSecrets.flatMap { $0.secrets.isEmpty ? nil : $0 })
        while true {
            call.attempt += 1
            if Task.isCancelled { throw cancelled(call.manager, request) }
            try await paceForRateLimit(call)
            try loader.spendCall()
            let context = CallContext(manager: call.manager.ref, service: service.name, attempt: call.attempt, redact: redactor.redact)
            let (outgoing, token) = try await prepared(call, context: context)
            logger?.debug("request", metadata: metadata(call, ["request": .string(redacted("\(outgoing.method) \(outgoing.url)", call))]))
            let result = await exchange(outgoing, call: call, context: context)
            let next: Next
            let waitsBefore = call.rateLimitWaits
            switch result {
            case .success(let response): next = try await judge(response, of: &call, token: token, context: context)
            case .failure(let error): next = try await judge(error, of: call, context: context)
            }
            switch next {
            case .done(var response):
                response.sentHeaders = outgoing.headers.map { QueryItem(name: $0.name, value: redacted($0.value, call)) }
                return response
            case .again:
                call.attempt -= 1
            case .wait(let seconds):
                logger?.info(
                    call.rateLimitWaits > waitsBefore ? "waiting for the rate limit to reset" : "retrying",
                    metadata: metadata(call, ["reason": .string(reason(of: result)), "wait": .string(seconds.clean + " s")]))
                do { try await clock.sleep(seconds: seconds) } catch {
                    throw cancelled(call.manager, request)
                }
            }
        }
    }

    /// One request on its way: what stays the same over its attempts, and how far it got.
    struct Call {
        /// The manager sending it.
        let manager: ManagerPlan
        /// The request as the loader built it (no credentials in it).
        let request: HTTPRequest
        /// The manager's retry plan, or the service's.
        let retry: RetryPlan
        /// The service's interceptors, then the manager's.
        let chain: [any Interceptor]
        /// The manager's own secrets, when it has any.
        let extraSecrets: Redactor?
        /// The 1-based attempt (a token refresh does not count).
        var attempt = 0
        /// Whether the OAuth2 token was refreshed once already after a 401.
        var refreshed = false
        /// Times this request waited for the rate limit to reset (they are not attempts).
        var rateLimitWaits = 0
    }

    /// Metadata naming the call's service, manager and attempt, with `extra`.
    private func metadata(_ call: Call, _ extra: Logger.Metadata) -> Logger.Metadata {
        extra.merging(
            ["service": .string(service.name), "manager": .string(call.manager.ref.name), "attempt": .stringConvertible(call.attempt)]
        ) { a, _ in a }
    }

    /// `text` with the service's secrets and the manager's own hidden.
    private func redacted(_ text: String, _ call: Call) -> String {
        let once = redactor.redact(text)
        return call.extraSecrets?.redact(once) ?? once
    }

    /// What an attempt ended with, for the log: a status or a transport failure's kind.
    private func reason(of result: Result<HTTPResponse, TransportError>) -> String {
        switch result {
        case .success(let response): "status \(response.status)"
        case .failure(let error): error.kind.rawValue
        }
    }

    /// The most times one request waits for a rate limit to reset before it gives up.
    static let maxRateLimitWaits = 20
    /// How long past a rate limit's reset a request that waited for it goes: a moment, so that the
    /// refilled window is there when it arrives (a reset said to the second or the millisecond).
    static let pastTheReset = 0.05

    /// Waits before sending while the service's rate limit runs low or is spent; throws
    /// `rate-limited` when the reset is further away than the retry policy waits.
    ///
    /// Pacing while requests remain waits at most `retry.max` at a time when the service or
    /// manager has a retry policy (a slower pace is not worth waiting longer than it allows); a request that waited checks again
    /// before it goes, since a response that came meanwhile may have spent the budget. Only a
    /// wait for the reset is announced (``ServiceEvent/rateLimited(service:manager:retryAfter:)``),
    /// once per reset however many requests wait for it.
    private func paceForRateLimit(_ call: Call) async throws(ManagerError) {
        let longest = call.retry.attempts > 1 ? call.retry.max : 0
        var generation = rateLimit.generation
        var (pause, spent) = rateLimit.delay(now: clock.now())
        while pause > 0 {
            if spent && pause > longest && pause > 1 {
                throw ManagerError(
                    .rateLimited, manager: call.manager.ref.name, request: call.request.matchKey,
                    message: rateLimitMessage(resetIn: pause, retry: call.retry))
            }
            // With a retry policy, pacing waits at most its max at a time; without one it paces as
            // the window asks (waiting is all it can do to stay within the limit).
            if !spent, call.retry.attempts > 1 { pause = min(pause, call.retry.max) }
            guard pause > 0 else { return }
            if spent, rateLimit.announces(reset: pause, now: clock.now()) {
                events.emit(.rateLimited(service: service.name, manager: call.manager.ref.name, retryAfter: pause))
            }
            logger?.info(
                spent ? "waiting for the rate limit to reset" : "pacing: the rate limit runs low",
                metadata: metadata(call, ["wait": .string(pause.clean + " s")]))
            // For the reset, a moment past it (as a refused request waits), so that the refilled
            // window is there when the request arrives: a reset said to the millisecond, or rounded
            // down, otherwise lets the request in just before it and is refused.
            do { try await clock.sleep(seconds: spent ? pause + ServiceClient.pastTheReset : pause) } catch {
                throw cancelled(call.manager, call.request)
            }
            // A response that came meanwhile may have spent the budget: check again.
            guard let wait = rateLimit.spentWait(now: clock.now(), after: generation) else { return }
            generation = rateLimit.generation
            (pause, spent) = (wait, true)
        }
    }

    /// Why a request gives up on a spent rate limit, when it resets, and what to change.
    private func rateLimitMessage(resetIn seconds: Double, retry: RetryPlan) -> String {
        // Clamped again here: a wait of any size is only printed, never a reason to stop the run.
        let wait = Int(saturating: Swift.min(seconds, Duration.longestWait).rounded(.up))
        let when = CivilDate.fromEpoch(Int(saturating: RetryAfter.now().rounded(.up)) + wait).iso8601
        let head = "rate limited: service '\(service.name)' takes no more requests until \(when) (in \(wait) s)"
        if retry.attempts <= 1 {
            return head
                + "; declare 'retry: { attempts: 3, max: \(wait + 1)s }' on the service to wait for the reset, or run again after then"
        }
        return head + ", longer than retry.max (\(retry.max.clean) s); raise retry.max to wait for it, or run again after then"
    }

    /// A response that says the rate limit is spent: wait for the reset (not an attempt) while
    /// the retry policy allows, else throw `rate-limited`; `nil` when it is no rate limit.
    private func judgeRateLimit(_ response: HTTPResponse, of call: inout Call, retryAfter: Double?) throws(ManagerError) -> Next? {
        var limits = RateLimitHeaders.read(from: response, now: RetryAfter.now())
        if limits == nil, let plan = call.manager.bodyRateLimit, let body = response.body {
            limits = RateLimitHeaders.read(from: body, plan: plan, now: RetryAfter.now())
        }
        if let limits { rateLimit.update(limits, now: clock.now()) }
        // A GraphQL API says so in the body, with status 200 (GitHub's RATE_LIMITED, Shopify's THROTTLED).
        let refusedInBody = call.manager.graphQL && response.body.map(GraphQLErrors.isRateLimited) == true
        guard
            refusedInBody
                || ((limits != nil || response.status == 403) && RateLimitHeaders.isRateLimited(response, headers: limits)
                    && !call.manager.expect.status.contains(response.status))
        else { return nil }
        let wait = retryAfter ?? limits?.resetIn ?? call.retry.backoff(beforeAttempt: call.attempt + 1)
        let longest = call.retry.attempts > 1 ? call.retry.max : 0
        guard call.rateLimitWaits < ServiceClient.maxRateLimitWaits else {
            throw ManagerError(
                .rateLimited, manager: call.manager.ref.name, request: call.request,
                message: "status \(response.status): service '\(service.name)' still answers rate limited after this request waited "
                    + "\(ServiceClient.maxRateLimitWaits) times for its reset; the service may count requests some other way (another "
                    + "client sharing the credentials?): run again later, or lower the service's rate_limit", response: response)
        }
        guard wait <= longest else {
            throw ManagerError(
                .rateLimited, manager: call.manager.ref.name, request: call.request,
                message: "status \(response.status), " + rateLimitMessage(resetIn: wait, retry: call.retry), response: response)
        }
        // Announced only when it is waited for (a wait past retry.max fails at once, above), once
        // per reset however many requests wait.
        if rateLimit.announces(reset: wait, now: clock.now()) {
            events.emit(.rateLimited(service: service.name, manager: call.manager.ref.name, retryAfter: wait))
        }
        call.rateLimitWaits += 1
        call.attempt -= 1
        // A moment past the reset, so the refilled window is there when the request arrives.
        return .wait(wait + ServiceClient.pastTheReset)
    }

    /// What to do after an attempt.
    enum Next {
        /// The response goes back to the loader.
        case done(HTTPResponse)
        /// Send again at once, as the same attempt (the token was refreshed).
        case again
        /// Send again after waiting this many seconds.
        case wait(Double)
    }

    /// The request of this attempt as it goes out: vetted and adapted by the interceptors, with
    /// the service's headers and credentials; and the OAuth2 token it carries, if any.
    private func prepared(_ call: Call, context: CallContext) async throws(ManagerError) -> (HTTPRequest, token: String?) {
        let request = call.request
        var outgoing = request
        outgoing.origin = outgoing.origin.map { Redirects.absoluteOrigin($0, base: baseURL) }
        if let origin = outgoing.origin, !Redirects.isSameOrigin(origin, baseURL), request.bareAtOtherOrigin {
            // A job's result file at a pre-signed storage URL: the URL is the credential; none of
            // the service's headers, credentials or interceptors go with it.
            outgoing.timeout = call.manager.timeout ?? service.timeout ?? 60
            outgoing.proxy = service.proxy
            outgoing.setHeader("Accept-Encoding", ContentDecoding.accepted)
            return (outgoing, nil)
        }
        if let origin = outgoing.origin, !Redirects.isSameOrigin(origin, baseURL) {
            throw ManagerError(
                .otherOrigin, manager: call.manager.ref.name, request: redact(request.url),
                message:
                    "the next page is on \(redact(origin)), another origin than the service's \(redact(Redirects.origin(of: baseURL) ?? baseURL)) "
                    + "(a Link or next-url from the API, or a resumed request saved for another base_url); the service's credentials are "
                    + "never sent to another origin, so the request was not sent. If the API really pages across hosts, fetch that host "
                    + "with a manager of its own service")
        }
        if outgoing.origin == nil { outgoing.baseURL = baseURL }
        outgoing.timeout = call.manager.timeout ?? service.timeout ?? 60
        outgoing.tls = service.tls
        outgoing.proxy = service.proxy
        for interceptor in call.chain where !(await interceptor.shouldCall(outgoing, context: context)) {
            throw ManagerError(
                .vetoed, manager: call.manager.ref.name, request: request.matchKey, message: "an interceptor vetoed the call")
        }
        let token = try await dress(&outgoing, as: request, chain: call.chain, manager: call.manager.ref, context: context)
        if !redactor.secrets.isEmpty || call.extraSecrets != nil {
            outgoing.credentialHeaders = Set(
                outgoing.headers.filter { redactor.reveals($0.value) || call.extraSecrets?.reveals($0.value) == true }
                    .map { $0.name.lowercased() })
        }
        return (outgoing, token)
    }

    /// What every request gets on its way out, in this order: the interceptors' adaptations, the
    /// service's headers, its credentials, the interceptors' last word (signing). Returns the
    /// OAuth2 token it carries, if any. `request` is the request as built, for messages.
    func dress(
        _ outgoing: inout HTTPRequest, as request: HTTPRequest, chain: [any Interceptor], manager: ManagerRef, context: CallContext
    ) async throws(ManagerError) -> String? {
        for interceptor in chain { outgoing = try await interceptor.adapt(outgoing, context: context) }
        try applyHeaders(to: &outgoing, manager: manager, request: request)
        let token = try await applyAuth(to: &outgoing, manager: manager, request: request)
        for interceptor in chain { outgoing = try await interceptor.finalize(outgoing, context: context) }
        return token
    }

    /// Sends `outgoing` through the transport, timed, and shows the interceptors the outcome.
    private func exchange(_ outgoing: HTTPRequest, call: Call, context: CallContext) async -> Result<HTTPResponse, TransportError> {
        let started = MonotonicClock.now()
        let result: Result<HTTPResponse, TransportError>
        do {
            let response: HTTPResponse
            if let connections {
                response = try await connections.withPlace { try await transport.send(outgoing, for: call.manager.ref) }
            } else {
                response = try await transport.send(outgoing, for: call.manager.ref)
            }
            result = .success(response)
        } catch let error as TransportError {
            result = .failure(error)
        } catch {
            result = .failure(TransportError(.cancelled, manager: call.manager.ref.name, request: outgoing.matchKey, message: "\(error)"))
        }
        let seconds = MonotonicClock.now() - started
        if let logger, logger.logLevel <= .debug, case .success(let response) = result {
            logger.debug(
                "response",
                metadata: metadata(
                    call,
                    ["status": .stringConvertible(response.status), "ms": .stringConvertible(Int(saturating: (seconds * 1000).rounded()))]))
        }
        for interceptor in call.chain { await interceptor.afterCall(outgoing, result: result, seconds: seconds, context: context) }
        return result
    }

    /// A response: refresh the token once after a 401, retry a retryable status while the plan
    /// and the interceptors allow, else hand it back (or throw when retries gave up).
    private func judge(_ response: HTTPResponse, of call: inout Call, token: String?, context: CallContext) async throws(ManagerError)
        -> Next
    {
        let manager = call.manager
        if response.status == 401, let tokens, let token, !call.refreshed {
            call.refreshed = true
            events.emit(.credentialsRejected(service: service.name, manager: manager.ref.name, status: 401))
            _ = try await tokens.refresh(after: token, for: manager.ref)
            return .again
        }
        let retryAfter = response.header("retry-after").flatMap { RetryAfter.seconds($0, now: RetryAfter.now()) }
        if let next = try judgeRateLimit(response, of: &call, retryAfter: retryAfter) { return next }
        if response.status == 401 || response.status == 403 {
            events.emit(.credentialsRejected(service: service.name, manager: manager.ref.name, status: response.status))
        }
        if response.status == 429 {
            events.emit(.rateLimited(service: service.name, manager: manager.ref.name, retryAfter: retryAfter))
        }
        let retry = call.retry
        guard retry.retries(status: response.status), !manager.expect.status.contains(response.status) else {
            return .done(response)
        }
        var proposal = RetryDecision(
            retry: call.attempt < retry.attempts && retry.allows(method: call.request.method),
            wait: retryAfter ?? retry.backoff(beforeAttempt: call.attempt + 1), reason: "status \(response.status)",
            attempt: call.attempt)
        if let retryAfter, retryAfter > retry.max { proposal.retry = false }
        for interceptor in call.chain { proposal = await interceptor.retryDecision(proposal, context: context) }
        guard proposal.retry else {
            throw ManagerError(
                .httpStatus, manager: manager.ref.name, request: call.request,
                message: gaveUp(proposal, retry: retry, method: call.request.method, retryAfter: retryAfter), response: response)
        }
        return .wait(proposal.wait)
    }

    /// A transport failure: retry its kind while the plan and the interceptors allow, else throw
    /// it as the manager's failure (secrets redacted).
    private func judge(_ error: TransportError, of call: Call, context: CallContext) async throws(ManagerError) -> Next {
        let manager = call.manager
        if error.kind == .cancelled { throw cancelled(manager, call.request) }
        if error.kind == .unreachable {
            events.emit(.unreachable(service: service.name, manager: manager.ref.name, message: redactor.redact(error.message)))
        }
        let retry = call.retry
        var proposal = RetryDecision(
            retry: retry.retries(error.kind) && call.attempt < retry.attempts && retry.allows(method: call.request.method),
            wait: retry.backoff(beforeAttempt: call.attempt + 1), reason: error.kind.rawValue, attempt: call.attempt)
        for interceptor in call.chain { proposal = await interceptor.retryDecision(proposal, context: context) }
        guard proposal.retry else {
            let failure = ManagerError(error)
            let note = call.attempt > 1 ? " (after \(call.attempt) attempts)" : ""
            throw ManagerError(
                failure.kind, manager: manager.ref.name, request: call.request.matchKey,
                message: redactor.redact(failure.message) + note)
        }
        return .wait(proposal.wait)
    }

    /// Why retries gave up, and what to change.
    private func gaveUp(_ decision: RetryDecision, retry: RetryPlan, method: String, retryAfter: Double?) -> String {
        if let retryAfter, retryAfter > retry.max {
            return "\(decision.reason): the service asks to wait \(Int(saturating: retryAfter)) s (Retry-After), longer than retry.max "
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
}
