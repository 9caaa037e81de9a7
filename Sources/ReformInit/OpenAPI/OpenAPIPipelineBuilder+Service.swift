import OpenAPIKit
import ReformSDK

/// The service: base URLs from `servers`, auth from the security scheme the chosen operations use,
/// with `${VARIABLES}` for every secret, never a value.
extension OpenAPIPipelineBuilder {
    func service(named name: String, scheme: String?) -> PipelineDraft.Entry {
        var entries: [PipelineDraft.Entry] = []
        entries.append(baseURL())
        if let scheme, let auth = auth(scheme: scheme, service: name) { entries.append(auth) }
        return .init(name, block: entries)
    }

    /// `base_url`: the first server, or one per server named from its description.
    private func baseURL() -> PipelineDraft.Entry {
        guard let first = document.servers.first else {
            return .init(
                "base_url", "http://localhost", comment: "the document names no server: put the API's address here")
        }
        var notes: [String] = []
        let urls = document.servers.map { server -> String in
            var url = server.urlTemplate.rawValue
            for (variable, value) in server.variables {
                url = url.replacing("{\(variable)}", with: value.default)
            }
            if !server.variables.isEmpty {
                notes.append("server variables \(server.variables.keys.joined(separator: ", ")) set to their defaults")
            }
            return resolved(url)
        }
        if urls[0].hasPrefix("/") || !urls[0].contains("://") {
            return .init(
                "base_url", .string("http://localhost" + (urls[0].hasPrefix("/") ? urls[0] : "/" + urls[0])),
                comment: "the document's server '\(first.urlTemplate.rawValue)' is relative: put the API's host here", notes: notes)
        }
        guard urls.count > 1 else { return .init("base_url", .string(urls[0]), notes: notes) }
        var environments: Object = ["default": .string(urls[0])]
        var taken: Set<String> = ["default"]
        for (index, server) in document.servers.enumerated().dropFirst() where urls[index].contains("://") {
            let label = Naming.unique(Naming.snake(server.description ?? server.name ?? "server \(index + 1)"), in: &taken)
            environments.appendNew(key: label, value: .string(urls[index]))
        }
        notes.append("one base URL per server; choose one with --env NAME")
        return .init("base_url", .object(environments), notes: notes)
    }

    /// A relative server URL made absolute against a document read from a URL.
    private func resolved(_ url: String) -> String {
        guard url.hasPrefix("/"), options.source.hasPrefix("http://") || options.source.hasPrefix("https://") else { return url }
        let afterScheme = options.source.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        // `https:`, ``, `host:port`, `rest`
        guard afterScheme.count >= 3 else { return url }
        return "\(afterScheme[0])//\(afterScheme[2])\(url)"
    }

    /// `auth:` for the security scheme named `schemeName`.
    private func auth(scheme schemeName: String, service: String) -> PipelineDraft.Entry? {
        guard let entry = document.components.securitySchemes.first(where: { $0.key.rawValue == schemeName }),
            let scheme = document.components[entry.value]
        else { return nil }
        let variable = Naming.environment(service)
        let note: [String] = []
        switch scheme.type {
        case .http(let kind, _) where kind.lowercased() == "bearer":
            return .init("auth", ["bearer": .string("${\(variable)_TOKEN}")], notes: note)
        case .http(let kind, _) where kind.lowercased() == "basic":
            return .init(
                "auth", ["basic": ["user": .string("${\(variable)_USER}"), "password": .string("${\(variable)_PASSWORD}")]], notes: note)
        case .apiKey(let header, .header):
            return .init("auth", ["api_key": ["header": .string(header), "value": .string("${\(variable)_API_KEY}")]], notes: note)
        case .apiKey(let query, .query):
            return .init("auth", ["api_key": ["query": .string(query), "value": .string("${\(variable)_API_KEY}")]], notes: note)
        case .oauth2(let flows, _):
            guard let credentials = flows.clientCredentials else {
                return .init(
                    "auth", ["bearer": .string("${\(variable)_TOKEN}")],
                    notes: note + ["OAuth 2 without a client-credentials flow: get a token yourself and set \(variable)_TOKEN"])
            }
            var oauth: Object = [
                "token_url": .string("\(credentials.tokenUrl)"), "grant": "client_credentials",
                "client_id": .string("${\(variable)_CLIENT_ID}"), "client_secret": .string("${\(variable)_CLIENT_SECRET}"),
            ]
            let scopes = credentials.scopes.keys.map { $0 }
            if !scopes.isEmpty { oauth.appendNew(key: "scope", value: .string(scopes.joined(separator: " "))) }
            return .init("auth", ["oauth2": .object(oauth)], notes: note)
        default:
            return .init(
                "headers", .object(Object()),
                comment: "the API's security scheme '\(schemeName)' is not one Reform sends by itself: add its header here",
                notes: note)
        }
    }
}
