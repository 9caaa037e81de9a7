import ReformConcurrency
import ReformSDK
import ReformSystem

/// A manager's response cache (CTNetworking keeps one): responses keyed by method, URL, sorted
/// query and body, reused while younger than the manager's `cache.ttl`. In memory, and optionally
/// in files so later runs can use them. A landing answered from here is marked `cached`.
public final class ResponseCache: Sendable {
    private let entries = Guarded<[String: (response: HTTPResponse, storedAt: Double)]>([:])
    private let folder: String?

    /// A cache in memory, and in `folder` too when one is given (created when needed).
    public init(folder: String? = nil) {
        self.folder = folder
    }

    /// The cache key of `request` sent to `baseURL`.
    public static func key(for request: HTTPRequest, baseURL: String) -> String {
        var parts = request
        parts.headers = []
        return "\(request.origin ?? baseURL) \(parts.matchKey)"
    }

    /// The stored response for `key` if it is younger than `ttl` seconds.
    public func lookup(_ key: String, ttl: Double) -> HTTPResponse? {
        let now = RetryAfter.now()
        if let hit = entries.withLock({ $0[key] }), now - hit.storedAt <= ttl { return hit.response }
        guard let path = path(for: key), let bytes = try? FilePaths.readAll(path), let value = try? JSON.parse(bytes),
            case .object(let top) = value, top["key"]?.stringValue == key,
            let storedAt = top["stored_at"]?.doubleValue, now - storedAt <= ttl,
            case .object(let res)? = top["response"], case .int(let status)? = res["status"]
        else { return nil }
        var headers: [QueryItem] = []
        if case .object(let h)? = res["headers"] {
            for member in h.members { headers.append(QueryItem(name: member.key, value: member.value.plainText)) }
        }
        let response = HTTPResponse(status: status, headers: headers, body: res["body"], bodyText: res["body_text"]?.stringValue)
        entries.withLock { $0[key] = (response, storedAt) }
        return response
    }

    /// Keeps `response` under `key` (a failure to write the disk copy only loses the cache entry).
    public func store(_ response: HTTPResponse, for key: String) {
        let now = RetryAfter.now()
        entries.withLock { $0[key] = (response, now) }
        guard let path = path(for: key) else { return }
        guard case .object(var top) = ExchangeFile.value(request: HTTPRequest(method: "GET", path: "/"), response: response)
        else { return }
        top["key"] = .string(key)
        top["stored_at"] = .double(now)
        top["request"] = nil
        // What a server echoed may be in the response: the cache is for this user alone (a
        // folder an earlier version made 0755 is closed too).
        if let folder { chmod(folder, 0o700) }
        do {
            let file = try OutputFile.atomic(path: path, privateFile: true)
            file.buffer += Array(JSON.compactString(.object(top)).utf8)
            try file.commit()
        } catch {}
    }

    private func path(for key: String) -> String? {
        guard let folder else { return nil }
        return FilePaths.resolve(FNV1a.hex(key.utf8) + ".json", against: folder)
    }
}
