import ReformSDK
import ReformSystem

/// Writes one line per call to standard error: `reform: zufang GET http://…/list?page=2 -> 200 (12 ms)`,
/// with secret values redacted.
public struct LogInterceptor: Interceptor {
    /// A log interceptor.
    public init() {}

    /// Logs the call's outcome.
    public func afterCall(
        _ request: HTTPRequest, result: Result<HTTPResponse, TransportError>, seconds: Double, context: CallContext
    ) async {
        let outcome: String
        switch result {
        case .success(let response): outcome = "\(response.status)"
        case .failure(let error): outcome = error.kind.rawValue
        }
        let retry = context.attempt > 1 ? " (attempt \(context.attempt))" : ""
        let line =
            "reform: \(context.manager.name) \(request.method) \(context.redact(request.url)) -> \(outcome)"
            + " (\(Int(saturating: seconds * 1000)) ms)\(retry)\n"
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}

/// Adds headers to every request; values are `${VAR}` templates resolved per request.
public struct HeaderInterceptor: Interceptor {
    let headers: [(name: String, value: InterpolatedString)]
    let environment: [String: String]

    /// Adds `headers`, resolving their references in `environment`.
    public init(headers: [(name: String, value: InterpolatedString)], environment: [String: String]) {
        self.headers = headers
        self.environment = environment
    }

    /// The request with the headers set.
    public func adapt(_ request: HTTPRequest, context: CallContext) async throws(ManagerError) -> HTTPRequest {
        var adapted = request
        for header in headers {
            do { adapted.setHeader(header.name, try header.value.resolve(in: environment, secret: true)) } catch {
                throw ManagerError(
                    .configuration, manager: context.manager.name, request: request.matchKey,
                    message: "header '\(header.name)': \(error.message)")
            }
        }
        return adapted
    }
}

/// Spaces calls at least `1 / perSecond` apart. Declared on a service, one limiter is shared by all
/// of its managers.
public final class RateLimitInterceptor: Interceptor {
    private let interval: Duration
    private let gate: RateGate

    /// At most `perSecond` calls per second.
    public init(perSecond: Double) {
        interval = .seconds(saturating: 1 / perSecond)
        gate = RateGate()
    }

    /// Waits for the next free slot, then sends the request unchanged.
    public func adapt(_ request: HTTPRequest, context: CallContext) async throws(ManagerError) -> HTTPRequest {
        let wait = await gate.reserve(interval)
        if wait > .zero {
            do { try await Task.sleep(for: wait) } catch {
                throw ManagerError(.cancelled, manager: context.manager.name, request: request.matchKey, message: "cancelled")
            }
        }
        return request
    }
}

/// Hands out call slots `interval` apart.
actor RateGate {
    private var next = ContinuousClock.now

    /// How long the caller must wait for its slot.
    func reserve(_ interval: Duration) -> Duration {
        let now = ContinuousClock.now
        let slot = max(now, next)
        next = slot + interval
        return slot - now
    }
}

extension InterceptorPlan {
    /// The interceptor this plan declares; `shared` keeps one rate limiter per declaration.
    func make(environment: [String: String]) -> any Interceptor {
        switch self {
        case .log: LogInterceptor()
        case .headers(let headers): HeaderInterceptor(headers: headers, environment: environment)
        case .rateLimit(let perSecond): RateLimitInterceptor(perSecond: perSecond)
        case .sign(let plan, let secret): SigningInterceptor(plan: plan, secret: secret, environment: environment)
        }
    }
}
