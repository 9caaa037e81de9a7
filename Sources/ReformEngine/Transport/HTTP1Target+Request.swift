import ReformHTTP1

extension HTTP1Target {
    /// The target of `request` (its origin or base URL, path and query) when the built-in client
    /// can send it: the same as parsing its ``HTTPRequest/url``, without building and parsing the
    /// whole URL for every page. An `https` target carries the service's `tls:` settings.
    init?(request: HTTPRequest) {
        let base = request.origin ?? request.baseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
        let queryString = request.query.isEmpty ? "" : request.queryString
        if let target = HTTP1Target(base: base, path: request.path, queryString: queryString) {
            self = target
        } else if let target = HTTP1Target(url: request.url) {
            self = target
        } else {
            return nil
        }
        if secure {
            let plan = request.tls ?? TLSPlan()
            tls = HTTP1TLS(
                caFile: plan.caFile, clientCertificate: plan.clientCertificate, clientKey: plan.clientKey, serverName: plan.serverName,
                environmentCertificates: EnvironmentTrust.folderCertificates)
        }
    }
}
