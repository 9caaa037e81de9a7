import ReformSystem

/// The HTTP proxy a request goes through, as curl and Python's requests choose it: the service's
/// `proxy:` when it declares one (`none`: never), else `HTTPS_PROXY` for `https://` and
/// `HTTP_PROXY` for `http://` (either in lower case too), unless `NO_PROXY` names the host (a
/// comma-separated list of hosts, `.domain` or `domain` suffixes, IP addresses, or `*` for all).
/// A request through a proxy goes by AsyncHTTPClient (`CONNECT` for https, the absolute URL for
/// http), whichever client would have sent it directly.
struct ProxyChoice: Hashable, Sendable {
    /// The proxy's host and port.
    var host: String
    var port: Int
    /// `user:password` given in the proxy's URL, for `Proxy-Authorization: Basic`.
    var user: String?
    var password: String?

    /// The proxy for `url` (`scheme://host[:port]/…`), given the service's `proxy:` setting.
    static func forURL(_ url: String, service setting: String?) -> ProxyChoice? {
        let https = url.lowercased().hasPrefix("https://")
        if let setting {
            return setting == "none" ? nil : parse(setting)
        }
        let names = https ? ["HTTPS_PROXY", "https_proxy"] : ["HTTP_PROXY", "http_proxy"]
        guard let value = names.lazy.compactMap(environment).first, let proxy = parse(value) else { return nil }
        let bypass = ["NO_PROXY", "no_proxy"].lazy.compactMap(environment).first ?? ""
        return bypasses(host: host(of: url), list: bypass) ? nil : proxy
    }

    /// Whether `NO_PROXY`'s `list` names `host`.
    static func bypasses(host: String, list: String) -> Bool {
        let host = host.lowercased()
        for raw in list.split(separator: ",") {
            var entry = raw.trimmingSpaces().lowercased()
            if entry == "*" { return true }
            if let colon = entry.lastIndex(of: ":"), !entry.contains("]"), entry.filter({ $0 == ":" }).count == 1 {
                entry = String(entry[..<colon])
            }
            if entry.hasPrefix("*") { entry.removeFirst() }
            if entry.hasPrefix(".") { entry.removeFirst() }
            guard !entry.isEmpty else { continue }
            if host == entry || host.hasSuffix("." + entry) { return true }
        }
        return false
    }

    /// `http://user:password@host:port` (the scheme may be left out) as a proxy; nil when it names no host.
    static func parse(_ text: String) -> ProxyChoice? {
        var rest = Substring(text.trimmingSpaces())
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        rest = rest.prefix { $0 != "/" }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            user = String(credentials.prefix { $0 != ":" })
            password = credentials.contains(":") ? String(credentials.drop { $0 != ":" }.dropFirst()) : nil
            rest = rest[rest.index(after: at)...]
        }
        var host = String(rest)
        var port = 80
        if let colon = rest.lastIndex(of: ":"), !rest[colon...].contains("]"), let number = Int(rest[rest.index(after: colon)...]) {
            host = String(rest[..<colon])
            port = number
        }
        host = host.trimmingCharacters(in: "[]")
        guard !host.isEmpty else { return nil }
        return ProxyChoice(host: host, port: port, user: user, password: password)
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
        return value
    }

    /// The host of `url`, without brackets or port.
    private static func host(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@").last.map(String.init) ?? String(authority)
        if hostPort.hasPrefix("["), let end = hostPort.firstIndex(of: "]") {
            return String(hostPort[hostPort.index(after: hostPort.startIndex)..<end])
        }
        return String(hostPort.prefix { $0 != ":" })
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end.
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// Without the characters of `set` at either end.
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
