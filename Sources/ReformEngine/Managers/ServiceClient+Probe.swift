import ReformConcurrency
public import ReformSDK

/// What one request to a service said about the environment a run would meet there
/// (`reform validate --check-env`): whether its `${…}`s resolve, whether its base URL answers,
/// and whether its credentials are taken.
public struct ServiceProbe: Sendable {
    /// How the probe went.
    public enum Outcome: Sendable, Equatable {
        /// The service answered with this status; its credentials, if any, were sent.
        case answered(status: Int)
        /// The request could not be made: a `${…}` that does not resolve, no base URL for the
        /// environment, an OAuth2 token endpoint that refused; the message says which.
        case notSent(String)
        /// The request went out and no answer came: unreachable, a timeout, a TLS failure.
        case noAnswer(String)
    }

    /// The service's name.
    public let service: String
    /// The URL requested, secrets redacted; `nil` when there was none to request.
    public let url: String?
    /// How it went.
    public let outcome: Outcome
    /// How long the exchange took, in milliseconds (0 when nothing was sent).
    public let milliseconds: Int

    /// Whether the environment looks right for the service: it answered, and not with a refusal
    /// of its credentials (401, 403) or a server error (5xx). A 404 of the base URL itself is fine:
    /// many APIs have nothing there.
    public var isHealthy: Bool {
        guard case .answered(let status) = outcome else { return false }
        return status < 400 || status == 404 || status == 405
    }

    /// One line: `service 'github' (https://api.github.com/): answered 200 in 85 ms`.
    public var summary: String {
        let target = url.map { " (\($0))" } ?? ""
        switch outcome {
        case .answered(let status):
            let verdict =
                switch status {
                case 401, 403: ", its credentials refused"
                case 500...: ", a server error"
                case 400..<500 where !isHealthy: ", a client error"
                default: ""
                }
            return "service '\(service)'\(target): answered \(status) in \(milliseconds) ms\(verdict)"
        case .notSent(let message):
            return "service '\(service)'\(target): not sent: \(message)"
        case .noAnswer(let message):
            return "service '\(service)'\(target): no answer: \(message)"
        }
    }

    /// A probe of `service` that could not be made at all (its client could not be built).
    public static func notSent(_ service: String, _ message: String) -> ServiceProbe {
        ServiceProbe(service: service, url: nil, outcome: .notSent(message), milliseconds: 0)
    }
}

extension ServiceClient {
    /// One GET of `path` (relative to the base URL; empty: the base URL itself) as a manager's
    /// request goes out — the service's headers, its credentials (an OAuth2 token fetched first)
    /// and its interceptors — without retries, within the service's timeout (10 s when it sets
    /// none). Nothing is recorded or cached; secrets are redacted from what it reports.
    public func probe(path: String = "") async -> ServiceProbe {
        let manager = ManagerRef(index: -1, name: "(probe)")
        let request = HTTPRequest(method: "GET", path: path)
        var outgoing = request
        outgoing.baseURL = baseURL
        outgoing.timeout = service.timeout ?? 10
        outgoing.tls = service.tls
        outgoing.proxy = service.proxy
        let context = CallContext(manager: manager, service: service.name, attempt: 1, redact: redactor.redact)
        do { _ = try await dress(&outgoing, as: request, chain: interceptors, manager: manager, context: context) } catch {
            return ServiceProbe(
                service: service.name, url: redact(outgoing.url), outcome: .notSent(redact(error.message)), milliseconds: 0)
        }
        let started = MonotonicClock.now()
        let outcome: ServiceProbe.Outcome
        do {
            let response = try await transport.send(outgoing, for: manager)
            outcome = .answered(status: response.status)
        } catch {
            outcome = .noAnswer(redact(error.message))
        }
        let milliseconds = Int(saturating: ((MonotonicClock.now() - started) * 1000).rounded())
        return ServiceProbe(service: service.name, url: redact(outgoing.url), outcome: outcome, milliseconds: milliseconds)
    }
}
