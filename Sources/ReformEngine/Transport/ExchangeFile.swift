public import ReformSDK

/// The readable form of one exchange (a fixture, a cached response): the request as the manager
/// built it and what came back. ``ReplayTransport`` reads it; recording and the disk cache write it.
///
/// ```json
/// { "request":  { "method": "GET", "path": "/items", "query": { "page": "2" } },
///   "response": { "status": 200, "headers": { "content-type": "application/json" }, "body": { … } } }
/// ```
///
/// A body kept in a file (an export's result file) is recorded beside the exchange, and the
/// response names it: `"body_file": "004.body.csv.gz"`.
public enum ExchangeFile {
    /// Response headers worth keeping: they drive paging, validation and retries. Others (cookies,
    /// dates, server names) are left out so recordings hold nothing they do not need.
    public static let keptHeaders: Set<String> = ["content-type", "link", "retry-after", "x-next-cursor", "x-total-count"]

    /// The exchange as a value; `redact` is applied to every text written (secrets become `***`).
    /// `bodyFile` names the file beside it that holds the body, when the body was kept in a file
    /// (an export's result file, recorded gzip-compressed as `NNN.body.csv.gz`).
    public static func value(
        request: HTTPRequest, response: HTTPResponse, extraHeaders: Set<String> = [], bodyFile: String? = nil,
        redact: (String) -> String = { $0 }
    ) -> Value {
        var req = Object()
        req["method"] = .string(request.method)
        req["path"] = .string(redact(request.path))
        if !request.query.isEmpty {
            var query = Object()
            for item in request.query { query[item.name] = .string(redact(item.value)) }
            req["query"] = .object(query)
        }
        if let body = request.body, !body.isEmpty {
            let text = redact(String(decoding: body, as: UTF8.self))
            req["body"] = .string(text)
        }
        var res = Object()
        res["status"] = .int(response.status)
        var headers = Object()
        for header in response.headers {
            let name = header.name.lowercased()
            if keptHeaders.contains(name) || extraHeaders.contains(name) { headers[name] = .string(redact(header.value)) }
        }
        if !headers.isEmpty { res["headers"] = .object(headers) }
        if let bodyFile {
            res["body_file"] = .string(bodyFile)
        } else if let body = response.body {
            res["body"] = redacted(body, redact)
        } else if let text = response.bodyText {
            res["body_text"] = .string(redact(text))
        }
        var top = Object()
        top["request"] = .object(req)
        top["response"] = .object(res)
        return .object(top)
    }

    /// `value` with `redact` applied to every string in it, keys included.
    static func redacted(_ value: Value, _ redact: (String) -> String) -> Value {
        switch value {
        case .string(let text): return .string(redact(text))
        case .array(let items): return .array(items.map { redacted($0, redact) })
        case .object(let object):
            var out = Object()
            for member in object.members { out[redact(member.key)] = redacted(member.value, redact) }
            return .object(out)
        default: return value
        }
    }
}
