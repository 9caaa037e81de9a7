/// The bytes of an HTTP/1.1 request: request line, `Host`, the caller's headers, the framing
/// header, and the body.
package enum HTTP1RequestHead {
    /// Header names the client sets itself; a caller's own values for them are not sent.
    private static let framingHeaders: Set<String> = ["content-length", "transfer-encoding", "connection"]
    /// Methods whose requests carry `Content-Length: 0` when they have no body, as servers expect.
    private static let bodyMethods: Set<String> = ["POST", "PUT", "PATCH"]

    /// The whole request for `method` and `target`; throws when a method, name or value could
    /// split the request (a line break in a header value, say).
    package static func bytes(method: String, target: HTTP1Target, headers: [HTTP1Field], body: [UInt8]?) throws(HTTP1Failure) -> [UInt8] {
        guard !method.isEmpty, method.utf8.allSatisfy(isTokenByte) else {
            throw .invalidRequest("the method '\(method)' is not an HTTP token")
        }
        var out: [UInt8] = []
        out.reserveCapacity(128 + target.requestTarget.utf8.count + headers.count * 48 + (body?.count ?? 0))
        append(method, "\(target.requestTarget) HTTP/1.1", to: &out, separator: " ")
        var sawHost = false
        for header in headers {
            let name = header.name.lowercased()
            if framingHeaders.contains(name) { continue }
            guard !header.name.isEmpty, header.name.utf8.allSatisfy(isTokenByte) else {
                throw .invalidRequest("the header name '\(header.name)' is not an HTTP token")
            }
            guard !header.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
                throw .invalidRequest("the value of header '\(header.name)' contains a line break or control character")
            }
            if name == "host" { sawHost = true }
            append(header.name, header.value, to: &out)
        }
        if !sawHost { append("Host", target.hostHeader, to: &out) }
        if let body, !body.isEmpty || bodyMethods.contains(method) {
            append("Content-Length", String(body.count), to: &out)
        } else if body == nil, bodyMethods.contains(method) {
            append("Content-Length", "0", to: &out)
        }
        out.append(contentsOf: [0x0D, 0x0A])
        if let body { out.append(contentsOf: body) }
        return out
    }

    private static func append(_ name: String, _ value: String, to out: inout [UInt8], separator: String = ": ") {
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: separator.utf8)
        out.append(contentsOf: value.utf8)
        out.append(contentsOf: [0x0D, 0x0A])
    }

    /// RFC 9110 `tchar`: the bytes a method or header name may hold.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
