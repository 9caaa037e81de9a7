/// The pipeline format, declared once: the decoder takes every mapping's accepted keys from here
/// (`allowed:`), and `reform schema` renders it as the JSON Schema editors complete from.
///
/// Adding a key means adding it here (with its description) and reading it in the decoder; a key
/// declared here that the decoder does not read is a key that is silently ignored.
package enum PipelineSchema {
    /// The top level of a pipeline file.
    package static let pipeline = SchemaObject(
        "A Reform pipeline: services, the API managers that land records, reformers, row shapes and runs.",
        keys: [
            SchemaKey("reform", .int(minimum: 1, maximum: 1), "The format version; this Reform reads 1."),
            SchemaKey("name", .string(), "The pipeline's name, shown in summaries."),
            SchemaKey("description", .string(), "What the pipeline does, for people reading it."),
            SchemaKey("services", .named(.object(service)), "The APIs called: base URL, headers, auth, retries; one entry per service."),
            SchemaKey("managers", .named(.object(manager)), "One manager per API endpoint: its request, paging, checks and fixtures."),
            SchemaKey("reformers", .named(.object(reformer)), "Reformers: field mappings into constant keys, built-in steps, or plugins."),
            SchemaKey(
                "rows", .named(.object(rowShape)), "Row shapes: columns, sorting, styles, and each manager's rules for filling them."),
            SchemaKey(
                "runs", .named(.object(run)),
                "Named runs: which managers, parameters, reformer chains and outputs; 'default' runs without --run."),
            SchemaKey("plugin_paths", .stringOrList, "Extra folders to search for reformer plugins, relative to the pipeline's folder."),
            SchemaKey("secrets", .object(secrets), "The command that answers ${exec:NAME} references, as Vector's exec backend."),
        ],
        required: ["reform", "managers"])

    /// `secrets:` of a pipeline.
    package static let secrets = SchemaObject(
        "secrets", "The command that answers ${exec:NAME}: run once before a live or recording run, with Vector's exec protocol.",
        keys: [
            SchemaKey("command", .stringOrList, "The program and its arguments; a relative path is the pipeline folder's."),
            SchemaKey("timeout", .duration, "The longest it may take (default 10s)."),
        ],
        required: ["command"])

    /// A service: what every manager calling it shares.
    package static let service = SchemaObject(
        "service", "An API the managers call: what every request to it shares.",
        keys: [
            SchemaKey(
                "base_url", .oneOf([.string(), .named(.string())]),
                "The URL paths are appended to; or one per environment ({ default: …, release: … }) chosen with --env."),
            SchemaKey("headers", .named(.string()), "Headers sent with every request; values may read the environment (${TOKEN})."),
            SchemaKey("timeout", .duration, "How long one request may take, like 10s."),
            SchemaKey("retry", .object(retry), "When and how failed requests are tried again."),
            SchemaKey("auth", .object(auth), "How requests authenticate: bearer, basic, api_key or oauth2."),
            SchemaKey("interceptors", .list(interceptor), "Interceptors around every call: log, headers, rate_limit, sign."),
            SchemaKey("connections", .int(minimum: 1, maximum: 256), "The most connections open to the service at once."),
            SchemaKey("tls", .object(tls), "For https: a private CA to trust, and a client certificate to present (PEM files)."),
            SchemaKey(
                "proxy", .string(),
                "The HTTP proxy requests go through, like http://proxy.internal:3128, or none (default: HTTPS_PROXY, HTTP_PROXY and NO_PROXY)."
            ),
            SchemaKey("description", .string(), "What the service is, for people reading the pipeline."),
        ],
        required: ["base_url"])

    /// `tls:` of a service.
    package static let tls = SchemaObject(
        "tls", "What an https connection trusts and presents beyond the system's certificate authorities.",
        keys: [
            SchemaKey("ca_file", .string(), "A file of PEM certificates of CAs to trust besides the system's."),
            SchemaKey("client_cert", .string(), "The client certificate (PEM) presented when the server asks for one; with client_key."),
            SchemaKey("client_key", .string(), "The client certificate's private key (PEM, not encrypted); with client_cert."),
            SchemaKey(
                "server_name", .string(),
                "The host name asked for (SNI) and checked in the server's certificate instead of the base_url's host "
                    + "(a service reached by address or through another name)."),
        ])

    /// `retry:` of a service or manager.
    package static let retry = SchemaObject(
        "retry", "When and how a failed request is tried again.",
        keys: [
            SchemaKey(
                "attempts", .int(minimum: 1, maximum: 100), "How many times a request is sent at most, the first included (default 3)."),
            SchemaKey("backoff", .choice(of: RetryPlan.Backoff.self), "How the wait grows between attempts (default exponential)."),
            SchemaKey("base", .duration, "The first wait (default 200ms)."),
            SchemaKey("max", .duration, "The longest wait (default 5s)."),
            SchemaKey(
                "on", .oneOf([retryCondition, .list(retryCondition)]),
                "What is retried: status codes, 4xx, 5xx, timeout, reset (default [429, 5xx, timeout, reset])."),
            SchemaKey("methods", .stringOrList, "The HTTP methods retried (default the idempotent ones: GET, HEAD, PUT, DELETE, OPTIONS)."),
        ])

    static let retryCondition = SchemaType.oneOf([
        .int(minimum: 100, maximum: 599), .choice(["timeout", "reset", "4xx", "5xx"]), .string(pattern: "^[1-5][0-9][0-9]$"),
    ])

    /// `auth:`: exactly one kind.
    package static let auth = SchemaObject(
        "auth", "How requests authenticate; exactly one kind.",
        keys: [
            SchemaKey("bearer", .string(), "A bearer token sent as 'Authorization: Bearer …'; read it from the environment (${TOKEN})."),
            SchemaKey("basic", .object(basicAuth), "HTTP basic authentication."),
            SchemaKey("api_key", .object(apiKey), "A key sent in a header or a query parameter."),
            SchemaKey("oauth2", .object(oauth2), "OAuth 2 tokens fetched from a token URL and refreshed when they expire."),
        ],
        exactlyOne: true)

    /// `auth: { basic: … }`.
    package static let basicAuth = SchemaObject(
        "HTTP basic authentication.",
        keys: [
            SchemaKey("user", .string(), "The user name."),
            SchemaKey("password", .string(), "The password; read it from the environment (${PASSWORD})."),
        ],
        required: ["user", "password"])

    /// `auth: { api_key: … }`.
    package static let apiKey = SchemaObject(
        "An API key, sent in a header or a query parameter.",
        keys: [
            SchemaKey("header", .string(), "The header the key is sent in (or give 'query')."),
            SchemaKey("query", .string(), "The query parameter the key is sent as (or give 'header')."),
            SchemaKey("value", .string(), "The key; read it from the environment (${API_KEY})."),
        ],
        required: ["value"])

    /// `auth: { oauth2: … }`.
    package static let oauth2 = SchemaObject(
        "OAuth 2 tokens from a token endpoint.",
        keys: [
            SchemaKey("token_url", .string(), "Where tokens are fetched."),
            SchemaKey("grant", .choice(of: OAuth2Plan.Grant.self), "The grant used (default client_credentials)."),
            SchemaKey("client_id", .string(), "The client id (client_credentials)."),
            SchemaKey("client_secret", .string(), "The client secret (client_credentials); read it from the environment."),
            SchemaKey("refresh_token", .string(), "The refresh token (refresh_token grant); read it from the environment."),
            SchemaKey("scope", .string(), "The scope asked for."),
        ],
        required: ["token_url"])

    /// An entry of `interceptors:`: `log`, or a mapping naming one interceptor.
    static let interceptor = SchemaType.oneOf([.choice(["log"]), .object(interceptorEntry)])

    /// A mapping entry of `interceptors:`: exactly one kind.
    package static let interceptorEntry = SchemaObject(
        "interceptor", "One interceptor and its options.",
        keys: [
            SchemaKey("log", .any, "Log every call (also written as the bare word log)."),
            SchemaKey("headers", .named(.string()), "Headers added to every call."),
            SchemaKey("rate_limit", .number, "The most calls per second."),
            SchemaKey("sign", .object(sign), "An HMAC signature of each request, in a header."),
        ],
        exactlyOne: true)

    /// `{ sign: … }`.
    package static let sign = SchemaObject(
        "sign", "An HMAC signature of each request, sent in a header.",
        keys: [
            SchemaKey("algorithm", .choice(of: SigningPlan.Algorithm.self), "The HMAC algorithm (default hmac-sha256)."),
            SchemaKey("secret", .string(), "The signing key; read it from the environment (\"${API_SIGNING_SECRET}\")."),
            SchemaKey("header", .string(), "The header the signature goes in, like X-Signature."),
            SchemaKey("encoding", .choice(of: SigningPlan.Encoding.self), "How the signature is written (default hex)."),
            SchemaKey(
                "message", .string(), "The canonical string signed, like \"{method}\\n{path}\\n{query}\\n{timestamp}\\n{body_sha256}\"."),
            SchemaKey("timestamp_header", .string(), "The header that sends the {timestamp} the message signs."),
            SchemaKey("prefix", .string(), "Text written before the signature, like 'v1='."),
        ],
        required: ["secret", "header", "message"])
}
