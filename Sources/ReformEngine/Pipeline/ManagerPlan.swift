public import ReformSDK
public import ReformYAML

/// One API: its service, request, parameters, where its records are, paging and policies.
public struct ManagerPlan: Sendable {
    /// The manager's name and position.
    public let ref: ManagerRef
    /// The service it calls, by name.
    public let service: String?
    /// The request path, possibly a template (`/users/{id}`).
    public let path: String?
    /// The HTTP method.
    public let method: String
    /// Declared parameters, in order.
    public let params: [ParamPlan]
    /// Where the records are in a landed body; `nil` means the body is the record list (or record).
    public let records: ValuePath?
    /// What a response must look like.
    public let expect: ExpectPlan
    /// How the next page is requested and when paging stops.
    public let paging: PagingPlan
    /// What happens when a request is asked for while one is in flight.
    public let takeoff: TakeoffPolicy
    /// How parameters that are not in the path are sent: the query (`nil`), a JSON or a form body.
    public let body: BodyEncoding?
    /// Hard limits on what the manager may spend; going past one is an error.
    public let budget: BudgetPlan
    /// Retry policy overriding the service's, when declared.
    public let retry: RetryPlan?
    /// Per-request timeout in seconds overriding the service's, when declared.
    public let timeout: Double?
    /// Interceptors for this manager's requests (after the service's), in order.
    public let interceptors: [InterceptorPlan]
    /// The response cache, when declared.
    public let cache: CachePlan?
    /// Absolute path of the recorded fixtures folder, when declared.
    public let fixtures: String?
    /// Where the manager is declared.
    public let location: SourceLocation
    /// Its partitions (`for_each:`): one run of it per list item, range step or parent record;
    /// `nil` runs it once.
    public var partitions: PartitionPlan? = nil
    /// Its cursor and checkpoints (`incremental:`), when it only asks for what changed since the
    /// last run.
    public var incremental: IncrementalPlan? = nil
    /// How a response's body holds its records (`format:`; JSON by default).
    public var format: ResponseFormat = .json
    /// The body sent as a template (`body: { json: … }`, `body: { form: … }`, or a `graphql:`
    /// manager's query and variables), in place of ``body``'s flat parameters.
    public var bodyTemplate: BodyTemplate? = nil
    /// Whether the manager speaks GraphQL (`graphql:`): an `errors` array in a response's body is
    /// a failure even with status 200.
    public var graphQL = false
    /// Where each answer's body says what is left of the rate limit (`graphql.rate_limit`), for
    /// an API that does not say so in headers.
    public var bodyRateLimit: BodyRateLimit?
    /// The asynchronous export job whose result files are the manager's pages (`job:`), if it is one.
    public var job: JobPlan? = nil
    /// How a CSV or TSV body is split (`csv:`), when not the format's default.
    public var csv: CSVOptions? = nil
}

/// How a CSV or TSV body is split: the field delimiter, and the column names when the body has no
/// header row.
public struct CSVOptions: Sendable, Equatable {
    /// The byte between fields (`,` for CSV and a tab for TSV by default).
    public var delimiter: UInt8?
    /// The column names, when the body has no header row (its first row is data).
    public var columns: [String]?

    /// Options with `delimiter` and `columns`.
    public init(delimiter: UInt8? = nil, columns: [String]? = nil) {
        self.delimiter = delimiter
        self.columns = columns
    }
}

extension ManagerPlan {
    /// Whether the manager's bodies are written to disk as they arrive and their records read
    /// from there as the page is taken, rather than held whole (under `--max-body-bytes`): an
    /// export job's result files in NDJSON, CSV, TSV, XML or as a JSON array (at the top or under a
    /// `records:` path of keys), and the one response
    /// of a manager that does not page (a download: an open-data portal's CSV) in NDJSON, CSV,
    /// TSV or XML.
    /// A paged manager's pages are held: its paging decides on their records. A cached one's too.
    public var streamsBodies: Bool {
        switch format {
        case .ndjson, .csv, .tsv, .xml:
            return job != nil || (paging.policy == .none && cache == nil)
        case .json:
            // An array at the top, or under a path of keys (`data.items`), read element by element.
            return job != nil && expect.require.isEmpty && (records == nil || records?.keys != nil)
        }
    }
}

extension ValuePath {
    /// The path's keys from the top-level object down, when it names keys only (`data.items`;
    /// `nil` for `items[0]`).
    var keys: [String]? {
        let keys = components.compactMap { component -> String? in
            if case .key(let name) = component { return name }
            return nil
        }
        return keys.count == components.count ? keys : nil
    }
}

/// How a response's body holds records.
public enum ResponseFormat: String, Sendable, CaseIterable {
    /// JSON: the records at the manager's `records:` path (default the body).
    case json
    /// One JSON value per line (NDJSON, JSON Lines); blank lines are skipped.
    case ndjson
    /// Comma-separated values with a header row (RFC 4180 quoting); each row a record of text values.
    case csv
    /// Tab-separated values with a header row, quoted as CSV is.
    case tsv
    /// XML: the elements at the manager's `records:` path of element names (the root's children
    /// by default), each an object of its attributes and child elements, values as text.
    case xml
}

/// How a manager sends its non-path parameters in a request body.
public enum BodyEncoding: String, Sendable, CaseIterable {
    /// A JSON object (`application/json`), values keeping their types.
    case json
    /// `application/x-www-form-urlencoded`.
    case form
}

/// Hard limits on one manager's work (seeds/004: one budget per manager).
public struct BudgetPlan: Sendable, Equatable {
    /// The most pages it may land.
    public var maxPages: Int?
    /// The most records it may land.
    public var maxRecords: Int?
    /// The most HTTP calls it may make, retries and token refreshes included.
    public var maxCalls: Int?
    /// The most wall time, in seconds, from its first request.
    public var maxTime: Double?

    /// No limits.
    public static let unlimited = BudgetPlan()

    /// A budget with the given limits (`nil`: no limit).
    public init(maxPages: Int? = nil, maxRecords: Int? = nil, maxCalls: Int? = nil, maxTime: Double? = nil) {
        self.maxPages = maxPages
        self.maxRecords = maxRecords
        self.maxCalls = maxCalls
        self.maxTime = maxTime
    }
}

/// A manager's response cache: landings reused while younger than `ttl`.
public struct CachePlan: Sendable, Equatable {
    /// Where cached responses are kept.
    public enum Store: String, Sendable, CaseIterable {
        /// In this process only.
        case memory
        /// In files under the cache folder, shared by runs.
        case disk
    }

    /// How long a cached response stays fresh, in seconds.
    public let ttl: Double
    /// Where it is kept.
    public let store: Store
}

/// A declared request parameter and its checks (made before takeoff).
public struct ParamPlan: Sendable {
    /// The kinds a parameter value may be declared as.
    public enum Kind: String, Sendable, CaseIterable {
        /// Any string.
        case string
        /// A whole number.
        case int
        /// Any number.
        case double
        /// `true` or `false`.
        case bool
    }

    /// The parameter's name.
    public let name: String
    /// Whether a run must give it.
    public let required: Bool
    /// Its kind, when declared.
    public let kind: Kind?
    /// A regular expression the value's text must match in full.
    public let pattern: String?
    /// The value used when a run gives none.
    public let defaultValue: Value?
    /// The smallest allowed number.
    public let minimum: Double?
    /// The largest allowed number.
    public let maximum: Double?
    /// The allowed values, when declared.
    public let allowed: [Value]?
    /// Where it is declared.
    public let location: SourceLocation

    /// `value` as this parameter's declared kind (``typed(_:as:)``).
    public func typed(_ value: Value) -> Value { ParamPlan.typed(value, as: kind) }

    /// A text value as `kind`: `--param ids=1,2` gives the whole numbers 1 and 2 to an `int`
    /// parameter, not the texts, and a JSON body sends `100`, not `"100"`. Other values, and
    /// text that is not of the kind (its check reports it), stay as they are.
    public static func typed(_ value: Value, as kind: Kind?) -> Value {
        guard case .string(let text) = value, let kind else { return value }
        switch kind {
        case .int: return Int(text).map { .int($0) } ?? value
        case .double: return Double(text).map { .double($0) } ?? value
        case .bool: return text == "true" ? .bool(true) : text == "false" ? .bool(false) : value
        case .string: return value
        }
    }
}

/// Checks on a landed response.
public struct ExpectPlan: Sendable {
    /// Allowed status codes.
    public let status: [Int]
    /// Paths that must be present in the body.
    public let require: [ValuePath]
    /// The content type the response must have, when declared.
    public let contentType: String?

    /// The default: status 200, nothing required.
    public static let standard = ExpectPlan(status: [200], require: [], contentType: nil)
}

/// What a manager does when a request is asked for while one is in flight (seeds/004).
public enum TakeoffPolicy: String, Sendable, CaseIterable {
    /// Keep the request in flight and drop the new one (refreshes).
    case ignoreNew = "ignore-new"
    /// Cancel the request in flight and send the new one (filters, searches).
    case cancelInFlight = "cancel-in-flight"
    /// Send both.
    case parallel
}

/// How a manager pages and when it stops.
public struct PagingPlan: Sendable {
    /// Ways of asking for the next page.
    public enum Policy: String, Sendable, CaseIterable {
        /// One request, no paging.
        case none
        /// A page number parameter.
        case page
        /// Offset and limit parameters.
        case offset
        /// A token from the body or a header.
        case cursor
        /// An RFC 8288 `Link` header with `rel="next"`.
        case link
        /// A next-page URL in the body.
        case nextURL = "next-url"
    }

    /// The policy.
    public let policy: Policy
    /// The query parameter carrying the page number, offset or cursor.
    public let param: String?
    /// The first page number or offset.
    public let start: Int
    /// The page size parameter name (`short_page` compares against its value).
    public let sizeParam: String?
    /// Where the cursor or next URL is in the body (for `cursor` and `next-url`).
    public let tokenPath: ValuePath?
    /// The response header carrying the cursor (for `cursor`), when it is not in the body.
    public let tokenHeader: String?
    /// Stop conditions.
    public let stop: Set<StopCondition>
    /// The most pages to fetch.
    public let maxPages: Int?
    /// The most records to land.
    public let maxRecords: Int?
    /// Where the body says whether there is a next page (`has_more`, GraphQL's
    /// `pageInfo.hasNextPage`): paging stops when it is not true.
    public var hasMore: ValuePath? = nil

    /// A manager that does not page.
    public static let single = PagingPlan(
        policy: .none, param: nil, start: 1, sizeParam: nil, tokenPath: nil, tokenHeader: nil, stop: [], maxPages: nil,
        maxRecords: nil)
}

/// When paging stops.
public enum StopCondition: String, Sendable, Hashable, CaseIterable {
    /// A page with no records.
    case emptyPage = "empty_page"
    /// A page with fewer records than the page size.
    case shortPage = "short_page"
    /// No next token or URL.
    case noNext = "no_next"
}
