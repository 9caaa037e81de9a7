public import ReformYAML

/// A service: base URLs per environment and what every request to it shares.
public struct ServicePlan: Sendable {
    /// The service's name.
    public let name: String
    /// Base URL per environment name; `default` is used when no `--env` is given. `${VAR}`
    /// references resolve when a request is built.
    public let baseURLs: [String: InterpolatedString]
    /// Headers sent with every request, as templates: `${VAR}` is resolved only when a request is
    /// built, so secrets are never held in the plan or printed.
    public let headers: [(name: String, value: InterpolatedString)]
    /// Per-request timeout in seconds.
    public let timeout: Double?
    /// Retry policy, when declared.
    public let retry: RetryPlan?
    /// How requests prove who is asking, when declared.
    public let auth: AuthPlan?
    /// Interceptors every request to the service passes through, in order.
    public let interceptors: [InterceptorPlan]
    /// Where the service is declared.
    public let location: SourceLocation
    /// The most requests in flight to the service at once, across its managers and partitions
    /// (`connections:`); `nil`: no bound beyond each manager's own.
    public var connections: Int? = nil
    /// The certificates an `https://` connection to the service trusts and presents (`tls:`).
    public var tls: TLSPlan? = nil
    /// The proxy requests to the service go through (`proxy:`: a URL, or `none` for never); nil:
    /// the environment's (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`).
    public var proxy: String? = nil

    /// The environment names the service has base URLs for, sorted.
    public var environments: [String] { baseURLs.keys.sorted() }
}

/// What an `https://` connection trusts and presents beyond the system's certificate authorities:
/// a private CA's certificates, and a client certificate for servers that ask for one (mutual TLS).
/// Paths are absolute (resolved against the pipeline's folder when loaded); PEM files.
public struct TLSPlan: Sendable, Hashable {
    /// Certificates of authorities trusted besides the system's (a file of one or more PEM certificates).
    public var caFile: String?
    /// The client certificate chain presented when the server asks for one.
    public var clientCertificate: String?
    /// The client certificate's private key (not encrypted).
    public var clientKey: String?
    /// The name asked for (SNI) and checked in the server's certificate in place of the base URL's
    /// host: a service reached by address, or through a name its certificate does not carry.
    public var serverName: String?

    /// A plan trusting `caFile`, presenting `clientCertificate` with `clientKey`, and expecting a
    /// certificate for `serverName` (the URL's host when nil).
    public init(caFile: String? = nil, clientCertificate: String? = nil, clientKey: String? = nil, serverName: String? = nil) {
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
        self.serverName = serverName
    }
}

/// When and how a failed request is tried again.
public struct RetryPlan: Sendable, Equatable {
    /// How waits grow between attempts.
    public enum Backoff: String, Sendable, CaseIterable {
        /// The same wait each time.
        case constant
        /// The wait doubles each time (with jitter).
        case exponential
    }

    /// Attempts in all, the first included.
    public let attempts: Int
    /// How waits grow.
    public let backoff: Backoff
    /// The first wait, in seconds.
    public let base: Double
    /// The longest wait, in seconds (a longer `Retry-After` is not waited for: the request fails).
    public let max: Double
    /// What to retry on: status codes, `5xx`-style classes, `timeout`, `reset`.
    public let on: [String]
    /// Methods that may be retried; by default only idempotent ones.
    public let methods: Set<String>

    /// The methods retried unless a pipeline says otherwise: the idempotent ones (RFC 9110 9.2.2).
    public static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]

    /// A policy of `attempts` with the given waits and triggers.
    public init(
        attempts: Int, backoff: Backoff = .exponential, base: Double = 0.2, max: Double = 5,
        on: [String] = ["429", "5xx", "timeout", "reset"], methods: Set<String> = RetryPlan.idempotentMethods
    ) {
        self.attempts = attempts
        self.backoff = backoff
        self.base = base
        self.max = max
        self.on = on
        self.methods = methods
    }

    /// One attempt, no retries.
    public static let none = RetryPlan(attempts: 1)
}

/// How requests to a service prove who is asking. Every secret stays a `${VAR}` template until a
/// request is built.
public enum AuthPlan: Sendable {
    /// `Authorization: Bearer TOKEN`.
    case bearer(InterpolatedString)
    /// `Authorization: Basic base64(user:password)`.
    case basic(user: InterpolatedString, password: InterpolatedString)
    /// An API key in a header or a query parameter.
    case apiKey(name: String, inQuery: Bool, value: InterpolatedString)
    /// An OAuth2 access token, fetched before the first request and again once on a 401.
    case oauth2(OAuth2Plan)
}

/// Where an OAuth2 access token comes from.
public struct OAuth2Plan: Sendable {
    /// The grant used to get a token.
    public enum Grant: String, Sendable, CaseIterable {
        /// `grant_type=client_credentials` with the client id and secret.
        case clientCredentials = "client_credentials"
        /// `grant_type=refresh_token` with a refresh token.
        case refreshToken = "refresh_token"
    }

    /// The token endpoint: absolute, or a path on the service's base URL.
    public let tokenURL: InterpolatedString
    /// The grant.
    public let grant: Grant
    /// The client id.
    public let clientID: InterpolatedString?
    /// The client secret.
    public let clientSecret: InterpolatedString?
    /// The refresh token (for the `refresh_token` grant).
    public let refreshToken: InterpolatedString?
    /// The scope asked for, when any.
    public let scope: String?
}

/// A built-in interceptor declared in YAML (services and managers take a list of them).
public enum InterceptorPlan: Sendable {
    /// Writes one line per call to standard error: method, URL (secrets redacted), status, time.
    case log
    /// Adds headers to every request.
    case headers([(name: String, value: InterpolatedString)])
    /// At most `perSecond` calls per second through this interceptor (shared by every manager of a
    /// service when declared on the service).
    case rateLimit(perSecond: Double)
    /// Signs every attempt with an HMAC of its canonical string; the secret stays a `${VAR}`
    /// template until a request is built.
    case sign(SigningPlan, secret: InterpolatedString)
}
