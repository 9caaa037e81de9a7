import ReformHTTP1

extension SigningMessage {
    /// The canonical string for `request` at unix time `timestamp`.
    public func render(_ request: HTTPRequest, timestamp: Int64) -> String {
        let (path, query) = Self.wirePathAndQuery(request)
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .method: out += request.method.uppercased()
            case .path: out += path
            case .query: out += Self.canonicalQuery(query)
            case .body: out += request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
            case .bodySHA256: out += Hex.sha256(request.body ?? [])
            case .timestamp: out += String(timestamp)
            case .header(let name): out += request.header(name) ?? ""
            }
        }
        return out
    }

    /// The path and raw query the server sees: taken from the URL as sent, so that a base URL's own
    /// path and a query written into a manager's `path` are signed too.
    static func wirePathAndQuery(_ request: HTTPRequest) -> (path: String, query: Substring) {
        var url = Substring(request.url)
        if let scheme = url.firstRange(of: "://") { url = url[scheme.upperBound...] }
        guard let slash = url.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return ("/", "") }
        let target = url[slash...]
        let path = target.prefix { $0 != "?" }
        let query = target.dropFirst(path.count + 1)
        return (path.isEmpty ? "/" : String(path), query)
    }

    /// `a=1&b=x%20y`: each pair decoded, percent-encoded again (RFC 3986 unreserved characters
    /// kept), sorted by name, then value.
    static func canonicalQuery(_ raw: Substring) -> String {
        raw.split(separator: "&").map { pair -> (String, String) in
            let name = pair.prefix { $0 != "=" }
            let value = pair.dropFirst(name.count + 1)
            return (
                PercentEncoding.encode(PercentEncoding.decode(String(name))), PercentEncoding.encode(PercentEncoding.decode(String(value)))
            )
        }
        .sorted { $0 < $1 }
        .map { "\($0.0)=\($0.1)" }
        .joined(separator: "&")
    }
}
