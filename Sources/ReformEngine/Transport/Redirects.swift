/// How the live transport follows a redirect, for both HTTP clients, as browsers and
/// AsyncHTTPClient do: `Location` resolved against the request's URL; 303 (and 301/302 after a
/// POST) become a GET without a body; credentials are not sent to another origin — the standard
/// ones (Authorization, Cookie, Proxy-Authorization, Origin) and every header the service filled
/// with a secret (``HTTPRequest/credentialHeaders``: an API key header, a secret custom header).
enum Redirects {
    /// The most redirects followed for one request.
    static let limit = 5
    private static let statuses: Set<Int> = [301, 302, 303, 307, 308]
    private static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization", "origin"]

    /// The request to send after `status` with `location` answered `request` at `url`; `nil` when
    /// it is not a redirect that can be followed (then the response is the answer).
    static func next(status: Int, location: String?, after request: HTTPRequest, at url: String) -> HTTPRequest? {
        guard statuses.contains(status), let location, !location.isEmpty,
            let (origin, pathAndQuery) = resolve(location, against: url)
        else { return nil }
        var next = HTTPRequest(method: request.method, path: pathAndQuery, headers: request.headers, body: request.body)
        next.origin = origin
        next.timeout = request.timeout
        let seeOther = status == 303 && request.method != "HEAD"
        let postMoved = (status == 301 || status == 302) && request.method == "POST"
        if seeOther || postMoved {
            next.method = "GET"
            next.body = nil
            next.headers.removeAll { $0.name.lowercased() == "content-type" }
        }
        next.credentialHeaders = request.credentialHeaders
        // A body going to a file still does (a result file's URL often redirects to storage),
        // and the service's proxy still carries the request.
        next.responseFile = request.responseFile
        next.proxy = request.proxy
        let sameOrigin = origin.lowercased() == self.origin(of: url)?.lowercased()
        // The service's TLS (its CA, its client certificate) stays with the service's origin.
        if sameOrigin { next.tls = request.tls }
        if !sameOrigin {
            next.headers.removeAll {
                let name = $0.name.lowercased()
                return credentialHeaders.contains(name) || request.credentialHeaders.contains(name)
            }
        }
        return next
    }

    /// Whether `origin` (`scheme://authority`) is the origin of `url`: scheme and host compared
    /// without case, a default port (80 for http, 443 for https) the same as none. Userinfo
    /// (`user:pw@`) makes another origin.
    static func isSameOrigin(_ origin: String, _ url: String) -> Bool {
        guard let other = self.origin(of: url) else { return false }
        return normalized(origin) == normalized(other)
    }

    /// `origin` with the scheme of `base` in front when it is a network-path origin (`//host:port`,
    /// from a link written without a scheme); other origins as they are.
    static func absoluteOrigin(_ origin: String, base: String) -> String {
        guard origin.hasPrefix("//"), let schemeEnd = base.firstRange(of: "://") else { return origin }
        return base[..<schemeEnd.lowerBound].lowercased() + ":" + origin
    }

    /// `origin` lower-cased, without the scheme's default port.
    private static func normalized(_ origin: String) -> String {
        var text = origin.lowercased()
        if text.hasPrefix("http://"), text.hasSuffix(":80") { text.removeLast(3) }
        if text.hasPrefix("https://"), text.hasSuffix(":443") { text.removeLast(4) }
        return text
    }

    /// `scheme://authority` of an absolute http(s) URL.
    static func origin(of url: String) -> String? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return scheme + "://" + rest[..<end]
    }

    /// The origin and path-and-query `location` points to from `url`; `nil` for a scheme other
    /// than http(s).
    private static func resolve(_ location: String, against url: String) -> (origin: String, pathAndQuery: String)? {
        var reference = Substring(location)
        if let fragment = reference.firstIndex(of: "#") { reference = reference[..<fragment] }
        let absolute: String
        if let colon = reference.firstIndex(of: ":"), !reference[..<colon].contains("/"), !reference[..<colon].contains("?") {
            absolute = String(reference)
        } else if reference.hasPrefix("//") {
            guard let schemeEnd = url.firstRange(of: "://") else { return nil }
            absolute = String(url[..<schemeEnd.lowerBound]) + ":" + String(reference)
        } else {
            guard let base = origin(of: url) else { return nil }
            let basePathAndQuery = url.dropFirst(base.count).prefix { $0 != "#" }
            let basePath = basePathAndQuery.prefix { $0 != "?" }
            if reference.hasPrefix("/") {
                absolute = base + reference
            } else if reference.hasPrefix("?") {
                absolute = base + (basePath.isEmpty ? "/" : basePath) + reference
            } else if reference.isEmpty {
                absolute = base + basePathAndQuery
            } else {
                let directory = basePath.lastIndex(of: "/").map { basePath[...$0] } ?? "/"
                absolute = base + directory + reference
            }
        }
        guard let origin = origin(of: absolute) else { return nil }
        var pathAndQuery = String(absolute.dropFirst(origin.count))
        if pathAndQuery.isEmpty || pathAndQuery.hasPrefix("?") { pathAndQuery = "/" + pathAndQuery }
        return (origin, pathAndQuery)
    }
}
