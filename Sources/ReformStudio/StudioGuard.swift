import HTTPTypes
import Hummingbird

/// What every request to the studio must show: the token printed with its URL, and a `Host`
/// that is this loopback address (a page of another site that rebinds its name to 127.0.0.1
/// sends its own name). Either missing is a 403 with a plain-text reason, before any route runs.
struct StudioGuard<Context: RequestContext>: RouterMiddleware {
    /// The session's token (a query parameter `token` on the page, the header `X-Reform-Token` on
    /// the page's API calls).
    let token: String
    /// The port the studio listens on, read once it is bound (port 0 asks for any): a `Host`
    /// must name it.
    let port: @Sendable () -> Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let port = port()
        guard let host = request.head.authority, StudioGuard.isLoopback(host: host, port: port) else {
            return StudioGuard.refusal(
                "the Host header must be 127.0.0.1:\(port) or localhost:\(port); reform studio answers only on loopback")
        }
        let given = request.headers[StudioToken.header] ?? request.uri.queryParameters["token"].map(String.init)
        guard let given, StudioToken.same(given, token) else {
            return StudioGuard.refusal("open the URL reform studio printed: its token is missing or wrong here")
        }
        var response = try await next(request, context)
        // Nothing of the studio is cached, framed by another page, or sniffed as another type.
        response.headers[.cacheControl] = "no-store"
        response.headers[.named("X-Frame-Options")] = "DENY"
        response.headers[.named("X-Content-Type-Options")] = "nosniff"
        response.headers[.named("Referrer-Policy")] = "no-referrer"
        return response
    }

    /// Whether `host` (a `Host` header's value) names this machine's loopback at `port`.
    static func isLoopback(host: String, port: Int) -> Bool {
        ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"].contains(host.lowercased())
    }

    static func refusal(_ message: String) -> Response {
        Response(
            status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "403 Forbidden: \(message)\n")))
    }
}

extension HTTPField.Name {
    /// The field named `name`, a literal of this module that is a valid field name.
    static func named(_ name: StaticString) -> HTTPField.Name {
        guard let field = HTTPField.Name("\(name)") else { preconditionFailure("'\(name)' is not an HTTP field name") }
        return field
    }
}

/// The studio's secret: made once per studio, shown only in the URL it prints.
enum StudioToken {
    /// The header the page's API calls carry the token in.
    static let header = HTTPField.Name.named("X-Reform-Token")

    /// Compares in time that does not depend on where the two differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// A new random token: 256 bits from the system's randomness (`getrandom(2)` through
    /// `SystemRandomNumberGenerator`), as 64 hex digits.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let digits = String(generator.next(), radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
