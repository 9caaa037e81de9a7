@_spi(Fuzzing) import ReformEngine
import ReformHTTP1

/// libFuzzer entry: the bytes are a server's answer, read by the built-in HTTP/1.1 client's
/// response reader over a real socket pair, as the answer to a GET and to a HEAD; the first line
/// is also taken as a URL and as a redirect's Location. Nothing may crash or hang, and what is
/// read must be consistent.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for method in ["GET", "HEAD"] {
        if case .response(let status, let bodyBytes, _) = HTTP1Fuzzing.readResponse(bytes, method: method, maxBodyBytes: 4096) {
            precondition((200...999).contains(status), "status \(status) returned (interim or not three digits)")
            precondition(bodyBytes <= 4096, "a body over the limit was returned")
            precondition(bodyBytes <= bytes.count, "more body bytes than were sent")
            if method == "HEAD" { precondition(bodyBytes == 0, "a body for HEAD") }
        }
    }
    let firstLine = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
    if let target = HTTP1Fuzzing.target(of: firstLine) {
        precondition(target.requestTarget.hasPrefix("/"), "a request target without '/'")
        precondition((1...65535).contains(target.port), "port \(target.port)")
        precondition(!target.requestTarget.utf8.contains { $0 <= 0x20 }, "white space in the request target")
    }
    for status in [301, 303, 307] {
        if let next = RedirectFuzzing.redirect(status: status, location: firstLine, method: "POST", url: "http://127.0.0.1:8080/a/b?c=1") {
            precondition(next.url.hasPrefix("http://") || next.url.hasPrefix("https://"), "redirect to \(next.url)")
            precondition(status != 303 || next.method == "GET", "303 kept \(next.method)")
        }
    }
    return 0
}
