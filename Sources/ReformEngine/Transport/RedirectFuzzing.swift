/// The entry point of the `FuzzHTTPResponse` libFuzzer target (`Fuzz/`) into redirect handling,
/// through the same code a live request runs. Not API: `@_spi(Fuzzing)` keeps it out of the
/// library's public surface.
@_spi(Fuzzing) public enum RedirectFuzzing {
    /// Where a redirect with `status` and `location` after a `method` request to `url` leads:
    /// the next method and URL, or `nil` when it is not followed.
    public static func redirect(status: Int, location: String, method: String, url: String) -> (method: String, url: String)? {
        var request = HTTPRequest(method: method, path: "/")
        request.origin = Redirects.origin(of: url)
        return Redirects.next(status: status, location: location, after: request, at: url).map { ($0.method, $0.url) }
    }
}
