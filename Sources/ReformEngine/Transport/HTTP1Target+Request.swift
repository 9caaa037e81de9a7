import ReformHTTP1

extension HTTP1Target {
    /// The target of `request` (its origin or base URL, path and query) when it is plain `http://`
    /// the built-in client can send: the same as parsing its ``HTTPRequest/url``, without building
    /// and parsing the whole URL for every page.
    init?(request: HTTPRequest) {
        let base = request.origin ?? request.baseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
        let queryString = request.query.isEmpty ? "" : request.queryString
        if let target = HTTP1Target(base: base, path: request.path, queryString: queryString) {
            self = target
        } else {
            self.init(url: request.url)
        }
    }
}
