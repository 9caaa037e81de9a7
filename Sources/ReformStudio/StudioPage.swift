import Hummingbird

/// The studio's one page: `Page/studio.html` with its style and script put inline, compiled into
/// the program, so that it works offline and from the release bundle.
enum StudioPage {
    /// The page, with a Content-Security-Policy that lets it run only its own script and style
    /// (by a nonce new to each response) and talk only to the studio.
    static func response() -> Response {
        let nonce = StudioToken.newToken()
        let page = html.replacing("{{nonce}}", with: nonce).replacing("/*{{style}}*/", with: style)
            .replacing("/*{{script}}*/", with: script)
        let policy =
            "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; connect-src 'self'; img-src data:; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        return Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .contentSecurityPolicy: policy],
            body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    static let html = String(decoding: PackageResources.studio_html, as: UTF8.self)
    static let style = String(decoding: PackageResources.studio_css, as: UTF8.self)
    static let script = String(decoding: PackageResources.studio_js, as: UTF8.self)
}
