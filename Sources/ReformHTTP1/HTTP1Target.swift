import ReformConcurrency

/// Where an `http://` or `https://` URL points: host, port and the request target, as the built-in
/// HTTP/1.1 client sends them, and for `https` what the connection trusts and presents.
package struct HTTP1Target: Equatable {
    /// The host: a name, an IPv4 address, or an IPv6 address without its brackets.
    package let host: String
    /// The TCP port (80, or 443 for `https`, when the URL gives none).
    package let port: Int
    /// Whether the URL is `https`: the connection is TLS.
    package let secure: Bool
    /// The `Host` header's value: the URL's authority, with the port only when it is not the scheme's.
    package let hostHeader: String
    /// What a TLS connection trusts and presents (for `https`; the system's trust when not set).
    package var tls = HTTP1TLS()
    /// The path and query (`/users?page=2`), never empty.
    package let requestTarget: String

    /// Which idle connections a request to this target can reuse: the scheme, host and port, and
    /// for `https` the TLS settings.
    var originKey: Origin { Origin(hostHeader: hostHeader, secure: secure, tls: secure ? tls : nil) }

    /// The key of ``originKey``.
    struct Origin: Hashable {
        let hostHeader: String
        let secure: Bool
        let tls: HTTP1TLS?
    }

    /// Base URLs and origins already parsed (a run sends every page to the same one).
    private static let parsedPrefixes = Guarded<[String: HTTP1Target]>([:])

    /// The target of a request to `path` (starting with `/`) with `queryString` (empty for none)
    /// under `base` (an `http://` or `https://` origin or base URL without a query or a trailing `/`): the
    /// same as parsing the joined URL, without parsing `base` again for every page. `nil` when
    /// the joined URL needs the full parser (a path with a fragment or white space).
    package init?(base: String, path: String, queryString: String) {
        let known = HTTP1Target.parsedPrefixes.withLock { $0[base] }
        guard let parsed = known ?? HTTP1Target(url: base), path.hasPrefix("/"),
            !parsed.requestTarget.contains("?"), !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "#") })
        else { return nil }
        if known == nil {
            HTTP1Target.parsedPrefixes.withLock { prefixes in
                if prefixes.count >= 64 { prefixes.removeAll() }
                prefixes[base] = parsed
            }
        }
        let basePath = parsed.requestTarget == "/" ? "" : parsed.requestTarget
        let escaped = HTTP1Target.escapingUnsafeBytes(path)
        self.init(
            host: parsed.host, port: parsed.port, secure: parsed.secure, hostHeader: parsed.hostHeader,
            requestTarget: queryString.isEmpty ? basePath + escaped : basePath + escaped + "?" + queryString)
    }

    /// `target` with the bytes a request line must not carry raw percent-encoded: non-ASCII
    /// (UTF-8 sent as is by a careless URL) and `"<>\^`{|}`, as browsers and curl send them.
    private static func escapingUnsafeBytes(_ target: String) -> String {
        PercentEncoding.encode(target) { $0 < 0x80 && !"\"<>\\^`{|}".utf8.contains($0) }
    }

    private init(host: String, port: Int, secure: Bool, hostHeader: String, requestTarget: String) {
        self.host = host
        self.port = port
        self.secure = secure
        self.hostHeader = hostHeader
        self.requestTarget = requestTarget
    }

    /// The target of `url` when it is an `http://` or `https://` URL the built-in client can send as
    /// it is (no user information); `nil` otherwise (other schemes, or what it does not parse).
    package init?(url: String) {
        let lowered = url.prefix(8).lowercased()
        let secure = lowered.hasPrefix("https://")
        let scheme = secure ? "https://" : "http://"
        guard url.utf8.count > scheme.utf8.count, lowered.hasPrefix(scheme) else { return nil }
        var rest = Substring(url).dropFirst(scheme.count)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if target.isEmpty { target = "/" } else if target.hasPrefix("?") { target = "/" + target }
        guard !authority.isEmpty, !authority.contains("@"),
            !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
        else { return nil }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        var port = secure ? 443 : 80
        if let portText, !portText.isEmpty {
            guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(portText), (1...65535).contains(number)
            else { return nil }
            port = number
        }
        guard !host.isEmpty,
            host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "%") })
        else { return nil }
        self.host = String(host).lowercased()
        self.port = port
        self.secure = secure
        target = HTTP1Target.escapingUnsafeBytes(target)
        let shownHost = authority.hasPrefix("[") ? "[\(self.host)]" : self.host
        hostHeader = port == (secure ? 443 : 80) ? shownHost : "\(shownHost):\(port)"
        requestTarget = target
    }
}
