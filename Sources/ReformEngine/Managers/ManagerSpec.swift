public import ReformSDK
import ReformYAML

/// A manager declared in Swift rather than YAML: the seed's "child protocol" (seeds/004). A
/// manager states only what is particular to it — its name and path — and takes every other
/// policy from the defaults in the extension below, overriding the ones it needs.
///
/// ```swift
/// struct Items: ManagerSpec {
///     let name = "items"
///     let path = "/paged/cursor"
///     var records: ValuePath? { try? ValuePath(parsing: "items") }
///     var paging: PagingPlan { .cursor(param: "cursor", token: "next_cursor") }
///     var takeoff: TakeoffPolicy { .cancelInFlight }
/// }
/// let manager = APIManager(spec: Items(), client: client)
/// ```
public protocol ManagerSpec: Sendable {
    /// The manager's name (used in messages and landings).
    var name: String { get }
    /// The request path; `{param}` placeholders are filled from parameters.
    var path: String { get }
    /// The HTTP method (default `GET`).
    var method: String { get }
    /// Parameter values sent with every request (default none).
    var parameters: [String: Value] { get }
    /// Where the records are in a landed body (default: the body itself).
    var records: ValuePath? { get }
    /// Statuses accepted (default `[200]`).
    var acceptedStatuses: [Int] { get }
    /// How the next page is asked for (default: no paging).
    var paging: PagingPlan { get }
    /// What happens when a request is asked for while one is in flight (default `parallel`).
    var takeoff: TakeoffPolicy { get }
    /// Hard limits (default none).
    var budget: BudgetPlan { get }
    /// The retry policy (default: the service's).
    var retry: RetryPlan? { get }
    /// Per-request timeout in seconds (default: the service's).
    var timeout: Double? { get }
}

extension ManagerSpec {
    /// `GET`.
    public var method: String { "GET" }
    /// No parameters.
    public var parameters: [String: Value] { [:] }
    /// The body itself.
    public var records: ValuePath? { nil }
    /// `[200]`.
    public var acceptedStatuses: [Int] { [200] }
    /// No paging.
    public var paging: PagingPlan { .single }
    /// `parallel`.
    public var takeoff: TakeoffPolicy { .parallel }
    /// No limits.
    public var budget: BudgetPlan { .unlimited }
    /// The service's.
    public var retry: RetryPlan? { nil }
    /// The service's.
    public var timeout: Double? { nil }

    /// The plan the engine runs, for a manager calling `service`.
    public func plan(service: String) -> ManagerPlan {
        let params = parameters.keys.sorted().map { name in
            ParamPlan(
                name: name, required: false, kind: nil, pattern: nil, defaultValue: parameters[name], minimum: nil, maximum: nil,
                allowed: nil, location: SourceLocation(line: 0, column: 0))
        }
        return ManagerPlan(
            ref: ManagerRef(index: 0, name: name), service: service, path: path, method: method.uppercased(), params: params,
            records: records, expect: ExpectPlan(status: acceptedStatuses, require: [], contentType: nil), paging: paging,
            takeoff: takeoff, body: nil, budget: budget, retry: retry, timeout: timeout, interceptors: [], cache: nil,
            fixtures: nil, location: SourceLocation(line: 0, column: 0))
    }
}

extension PagingPlan {
    /// A page-number policy: `param` counts from `start`; stops on an empty page or at `maxPages`.
    public static func pages(param: String, start: Int = 1, maxPages: Int? = nil) -> PagingPlan {
        PagingPlan(
            policy: .page, param: param, start: start, sizeParam: nil, tokenPath: nil, tokenHeader: nil, stop: [.emptyPage],
            maxPages: maxPages, maxRecords: nil)
    }

    /// A cursor policy: the token at body path `token` is sent back as `param`; stops when it is missing.
    public static func cursor(param: String, token: String, maxPages: Int? = nil) -> PagingPlan {
        PagingPlan(
            policy: .cursor, param: param, start: 1, sizeParam: nil, tokenPath: try? ValuePath(parsing: token), tokenHeader: nil,
            stop: [.noNext], maxPages: maxPages, maxRecords: nil)
    }

    /// An RFC 8288 `Link` header policy: follows `rel="next"` until there is none.
    public static func link(maxPages: Int? = nil) -> PagingPlan {
        PagingPlan(
            policy: .link, param: nil, start: 1, sizeParam: nil, tokenPath: nil, tokenHeader: nil, stop: [.noNext],
            maxPages: maxPages, maxRecords: nil)
    }
}

extension APIManager {
    /// A manager declared in Swift, sending through `client`.
    public convenience init(spec: some ManagerSpec, client: ServiceClient, interceptors: [any Interceptor] = []) {
        self.init(plan: spec.plan(service: client.service.name), client: client, interceptors: interceptors)
    }
}

extension ServicePlan {
    /// A service declared in Swift: `baseURL` (may hold `${VAR}`s) and headers; no auth.
    public static func named(
        _ name: String, baseURL: String, headers: [String: String] = [:], timeout: Double? = nil, retry: RetryPlan? = nil
    ) throws(InterpolationError) -> ServicePlan {
        ServicePlan(
            name: name, baseURLs: ["default": try InterpolatedString(parsing: baseURL)],
            headers: try headers.keys.sorted().map { key throws(InterpolationError) in
                (key, try InterpolatedString(parsing: headers[key] ?? ""))
            },
            timeout: timeout, retry: retry, auth: nil, interceptors: [], location: SourceLocation(line: 0, column: 0))
    }
}
