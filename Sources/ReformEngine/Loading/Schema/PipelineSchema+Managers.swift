/// `managers:`: requests, parameters, checks, paging, partitions and incremental runs.
extension PipelineSchema {
    /// The HTTP methods a manager may use (written in any case).
    package static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]

    /// A manager: one API endpoint.
    package static let manager = SchemaObject(
        "manager", "One API endpoint: what it is asked, where its records are, how it pages, what it checks.",
        keys: [
            SchemaKey("service", .string(), "The service called (a name under 'services')."),
            SchemaKey("path", .string(pattern: "^/"), "The path after the base URL, starting with '/'; {param} inserts a parameter."),
            SchemaKey("method", .choice(methods + methods.map { $0.lowercased() }), "The HTTP method (default GET)."),
            SchemaKey(
                "params", .named(.oneOf([.object(param), .anyButMapping])),
                "The parameters the manager takes, checked before a request is sent; a bare value is a default."),
            SchemaKey(
                "records", .string(),
                "Where the records are in the landed body, like data.list (default the body); for xml the record elements' names from the root."
            ),
            SchemaKey(
                "format", .choice(of: ResponseFormat.self),
                "How the body holds records: json (default), ndjson, csv or tsv (a header row; each row a record of text), "
                    + "or xml (the elements at records:, like rss.channel.item)."),
            SchemaKey(
                "csv", .object(csvOptions), "How a CSV or TSV body is split: its delimiter, and column names when it has no header row."),
            SchemaKey("expect", .object(expect), "What a response must be: status, required paths, content type."),
            SchemaKey("paging", .object(paging), "How the manager asks for the next page, and when it stops."),
            SchemaKey(
                "takeoff", .choice(of: TakeoffPolicy.self),
                "What happens when a request is asked for while one is in flight (default parallel)."),
            SchemaKey("fixtures", .string(), "The folder of recorded responses, relative to the pipeline file: the offline source."),
            SchemaKey("description", .string(), "What the manager fetches, for people reading the pipeline."),
            SchemaKey(
                "body", .oneOf([.choice(of: BodyEncoding.self), .object(bodyTemplate)]),
                "The body of a POST, PUT or PATCH: json or form (the params, flat), or a template: json: {…} or form: {…} "
                    + "with {param} placeholders (the paging cursor or page too)."),
            SchemaKey(
                "graphql", .object(graphQL),
                "A GraphQL query: POSTs its query and variables, fails on 'errors', pages by the connection's pageInfo."),
            SchemaKey("budget", .object(budget), "The most pages, records, calls and time this manager may spend in a run."),
            SchemaKey("retry", .object(retry), "Retries for this manager, in place of the service's."),
            SchemaKey("timeout", .duration, "How long one request may take, in place of the service's."),
            SchemaKey("interceptors", .list(interceptor), "Interceptors for this manager's calls, after the service's."),
            SchemaKey("cache", .object(cache), "Keep responses for a time, in memory or on disk."),
            SchemaKey("for_each", .object(forEach), "Partitions: one pass per value, range step or parent record."),
            SchemaKey("incremental", .object(incremental), "Land only what changed since the last run, by a cursor field."),
            SchemaKey(
                "job", .object(job),
                "An asynchronous export: create it, poll its status until done, then read its result files as the pages."),
        ])

    /// A declared parameter.
    package static let param = SchemaObject(
        "param", "A parameter: its type and the checks made before a request is sent.",
        keys: [
            SchemaKey("required", .bool, "Whether a run must give it."),
            SchemaKey("type", .choice(of: ParamPlan.Kind.self), "Its type."),
            SchemaKey("pattern", .string(), "A regular expression its text must match."),
            SchemaKey("default", .any, "The value sent when a run gives none."),
            SchemaKey("min", .number, "The smallest value allowed."),
            SchemaKey("max", .number, "The largest value allowed."),
            SchemaKey("enum", .list(.any), "The values allowed."),
            SchemaKey("description", .string(), "What the parameter does."),
        ])

    /// `expect:` of a manager.
    package static let expect = SchemaObject(
        "What a response must be to be landed.",
        keys: [
            SchemaKey(
                "status", .oneOf([.int(minimum: 100, maximum: 599), .list(.int(minimum: 100, maximum: 599))]),
                "The status codes accepted (default 200)."),
            SchemaKey("require", .stringOrList, "Paths the body must have, like data.list."),
            SchemaKey("content_type", .string(), "The content type the response must have, like application/json."),
        ])

    /// `paging:` of a manager.
    package static let paging = SchemaObject(
        "paging", "How the manager asks for the next page, and when it stops.",
        keys: [
            SchemaKey("policy", .choice(of: PagingPlan.Policy.self), "How pages are asked for."),
            SchemaKey("param", .string(), "The query parameter that carries the page, offset or cursor."),
            SchemaKey("start", .int(minimum: 0), "The first page number or offset (default 1, or 0 for offset)."),
            SchemaKey("size_param", .string(), "The parameter holding the page size (for short_page)."),
            SchemaKey("token", .string(), "Where the next cursor or URL is in the body, like meta.next."),
            SchemaKey("header", .string(), "The response header carrying the next cursor."),
            SchemaKey(
                "has_more", .string(),
                "Where the body says whether there is a next page, like meta.has_more; paging stops when it is not true."),
            SchemaKey(
                "stop", .oneOf([.choice(of: StopCondition.self), .list(.choice(of: StopCondition.self)), .object(stop)]),
                "When paging stops: empty_page, short_page, no_next."),
            SchemaKey("max_pages", .int(minimum: 1), "The most pages fetched."),
            SchemaKey("max_records", .int(minimum: 1), "The most records landed."),
        ],
        required: ["policy"])

    /// `body:` of a manager written as a template.
    package static let bodyTemplate = SchemaObject(
        "A request body template: one of json or form; {name} places a param, the paging cursor or page, or the incremental cursor.",
        keys: [
            SchemaKey("json", .any, "The JSON body, any shape; a string that is exactly {name} becomes the value with its type."),
            SchemaKey("form", .named(.anyButMapping), "Form fields and their values."),
        ], exactlyOne: true)

    /// `graphql:` of a manager.
    package static let graphQL = SchemaObject(
        "graphql", "A GraphQL query: sent as a POST of its query and variables (to path, default /graphql).",
        keys: [
            SchemaKey("query", .string(), "The GraphQL document."),
            SchemaKey("query_file", .string(), "A file holding the GraphQL document, relative to the pipeline file."),
            SchemaKey("variables", .named(.any), "The query's variables; {param} places a param."),
            SchemaKey(
                "page_info", .string(),
                "Where the connection's pageInfo is, like data.repository.issues.pageInfo: endCursor goes to the cursor variable, "
                    + "hasNextPage stops paging."),
            SchemaKey("cursor", .string(), "The variable the cursor goes to (default after)."),
            SchemaKey("max_pages", .int(minimum: 1), "The most pages page_info pages through (a stop, not a failure)."),
            SchemaKey(
                "rate_limit", .object(graphQLRateLimit),
                "Where each answer says what is left of the rate limit (GitHub's rateLimit { limit remaining resetAt }): the requests "
                    + "wait for the reset once none is left."),
        ])

    /// `rate_limit:` of `graphql:`.
    package static let graphQLRateLimit = SchemaObject(
        "Paths into each answer's body to the rate limit's state.",
        keys: [
            SchemaKey("remaining", .string(), "What is left in the window, like data.rateLimit.remaining."),
            SchemaKey("reset_at", .string(), "When the window resets (ISO 8601, or Unix seconds), like data.rateLimit.resetAt."),
            SchemaKey("limit", .string(), "What a window allows, like data.rateLimit.limit."),
        ], required: ["remaining"])

    /// `csv:` of a manager.
    package static let csvOptions = SchemaObject(
        "How a CSV or TSV body is split.",
        keys: [
            SchemaKey("delimiter", .string(), "The character between fields: one ASCII character like ';' or '|', or 'tab'."),
            SchemaKey("columns", .list(.string()), "The column names, when the body has no header row (its first row is data)."),
        ])

    /// `job:` of a manager.
    package static let job = SchemaObject(
        "job", "An asynchronous export job: a request creates it, its status is polled, its result files are the pages.",
        keys: [
            SchemaKey("create", .object(jobCreate), "The request that creates the job (method POST by default)."),
            SchemaKey("id", .string(), "Where the create answer holds the job's id (default id)."),
            SchemaKey("poll", .object(jobPoll), "The request that asks the job's status; its path has {job_id}."),
            SchemaKey("status", .string(), "Where a poll answer holds the status (default status)."),
            SchemaKey("done", .stringOrList, "Status values meaning the results are ready (default done, completed, succeeded, …)."),
            SchemaKey("failed", .stringOrList, "Status values meaning the job failed (default failed, error, cancelled, …)."),
            SchemaKey("error", .string(), "Where a failed job's answer says why."),
            SchemaKey("results", .string(), "Where the done answer lists the result files: a URL, or a list of URLs or of {url}."),
            SchemaKey("cancel", .object(jobCreate), "The request that cancels the job when the run is stopped (method DELETE by default)."),
        ],
        required: ["create", "poll", "results"])

    /// `create:` of a job.
    package static let jobCreate = SchemaObject(
        "The request that creates an export job.",
        keys: [
            SchemaKey("path", .string(pattern: "^/"), "The path; {param} inserts a parameter."),
            SchemaKey("method", .choice(methods + methods.map { $0.lowercased() }), "The HTTP method (default POST)."),
            SchemaKey("body", .oneOf([.object(bodyTemplate)]), "The body: json: {…} or form: {…} with {param} placeholders."),
        ])

    /// `poll:` of a job.
    package static let jobPoll = SchemaObject(
        "The request that asks an export job's status, and how often.",
        keys: [
            SchemaKey("path", .string(pattern: "^/"), "The path, with {job_id}."),
            SchemaKey("method", .choice(methods + methods.map { $0.lowercased() }), "The HTTP method (default GET)."),
            SchemaKey("every", .duration, "The wait before the first poll (default 1s); each later one is half as long again."),
            SchemaKey("max_every", .duration, "The longest wait between polls (default 30s)."),
            SchemaKey("max_wait", .duration, "The longest the job may take (default 1h); past it the manager fails."),
        ])

    /// `stop:` of paging written as a mapping.
    package static let stop = SchemaObject(
        "Stop conditions; short_page names the page size parameter.",
        keys: [
            SchemaKey("empty_page", .any, "Stop at a page with no records."),
            SchemaKey("short_page", .any, "Stop at a page with fewer records than the page size; the value names the size parameter."),
            SchemaKey("no_next", .any, "Stop when there is no next token or URL."),
        ])

    /// `budget:` of a manager.
    package static let budget = SchemaObject(
        "The most a manager may spend in one run.",
        keys: [
            SchemaKey("max_pages", .int(minimum: 1), "The most pages."),
            SchemaKey("max_records", .int(minimum: 1), "The most records."),
            SchemaKey("max_calls", .int(minimum: 1), "The most requests, retries included."),
            SchemaKey("max_time", .duration, "The most wall time."),
        ])

    /// `cache:` of a manager.
    package static let cache = SchemaObject(
        "Responses kept for a time.",
        keys: [
            SchemaKey("ttl", .duration, "How long a response is kept."),
            SchemaKey("store", .choice(of: CachePlan.Store.self), "Where responses are kept (default memory)."),
        ],
        required: ["ttl"])

    /// `for_each:` of a manager.
    package static let forEach = SchemaObject(
        "Partitions: the manager runs once per value, range step, or record of a parent manager.",
        keys: [
            SchemaKey("param", .string(), "The parameter each partition sets."),
            SchemaKey("values", .list(.any), "The parameter's values, one partition each."),
            SchemaKey("range", .object(range), "A range of numbers or dates, one partition per step."),
            SchemaKey("manager", .string(), "A parent manager: one partition per record it lands."),
            SchemaKey("params", .named(.string()), "With 'manager': which parameter comes from which field of the parent's records."),
            SchemaKey("concurrency", .int(minimum: 1, maximum: 256), "How many partitions run at once (default 1)."),
            SchemaKey("on_error", .choice(of: PartitionFailurePolicy.self), "What a failed partition does to the run (default fail)."),
            SchemaKey(
                "max_partitions", .int(minimum: 1, maximum: PartitionPlan.maxPartitionsCeiling),
                "The most partitions it may run (default 100000); each is held in memory during the run."),
        ])

    /// `range:` of `for_each:`.
    package static let range = SchemaObject(
        "A range of whole numbers, or of dates like 2026-01-31.",
        keys: [
            SchemaKey("from", .oneOf([.int(), .string()]), "The first value."),
            SchemaKey("to", .oneOf([.int(), .string()]), "The last value, included."),
            SchemaKey("step", .int(minimum: 1), "The step, in units or days (default 1)."),
        ],
        required: ["from", "to"])

    /// `incremental:` of a manager.
    package static let incremental = SchemaObject(
        "Land only what changed since the last run.",
        keys: [
            SchemaKey("cursor", .string(), "The record field that orders changes, like updated_at."),
            SchemaKey("param", .string(), "The parameter the bookmark is sent as, like since."),
            SchemaKey("format", .choice(of: IncrementalPlan.Format.self), "How cursor values are written (default iso8601)."),
            SchemaKey("lookback", .duration, "How far before the bookmark to ask again (time formats)."),
            SchemaKey("key", .string(), "The field that identifies a record, to drop repeats the lookback brings."),
            SchemaKey("start", .any, "The bookmark of the first run."),
            SchemaKey("checkpoint", .int(minimum: 1, maximum: 1_000_000), "Pages between checkpoints (default 10)."),
        ],
        required: ["cursor", "param"])
}
