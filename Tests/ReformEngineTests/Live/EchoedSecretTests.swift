import Foundation
import ReformTestSupport
import Testing

/// What a hostile or careless server echoes back stays harmless: a secret in any encoding is
/// hidden in errors, terminal escapes in a body are shown escaped, and the disk cache that may
/// hold echoed secrets is private (reliability audit D12, D15). Through the real binary and server.
@Suite(.timeLimit(.minutes(10))) struct EchoedSecretTests {
    /// A token with every character that escapes differently in JSON and in URLs.
    static let token = "QQ1core\"tail\\x/ü"

    /// The forms a server may echo `token` in.
    static let echoes = [
        #"QQ1core\"tail\\x/ü"#,  // JSON, as most servers write it
        #"QQ1core\"tail\\x\/\u00fc"#,  // JSON with \/ and ASCII-only
        #"QQ1core\"tail\\x\/\u00FC"#,
        "QQ1core%22tail%5cx%2f%c3%bc",  // percent-encoded, lower-case hex
        "QQ1core%22tail%5Cx%2F%C3%BC",
        #"QQ1core"tail\\x/ü"#,  // Python's repr of the string
    ]

    static func pipeline(body: String) -> String {
        let response = "HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        let bytes = Data(response.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_")
        return """
            reform: 1
            services:
              api: { base_url: "${TEST_URL}", auth: { bearer: "${TOKEN}" } }
            managers:
              echo: { service: api, path: /raw, params: { bytes: "\(bytes)" } }
              cached: { service: api, path: /echo, params: { q: x }, cache: { store: disk, ttl: 1h } }
            runs:
              default: { managers: [echo], output: { format: ndjson } }
              cached: { managers: [cached], output: { format: ndjson } }
            """
    }

    @Test func aSecretEchoedInAnyEncodingIsHiddenAndTerminalEscapesAreShownEscaped() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let body = "denied: " + Self.echoes.joined(separator: " | ") + " \u{1B}]0;PWNED\u{07}\u{1B}[2J\u{1B}[1;31mFAKE: all good\u{1B}[0m\r"
        let pipeline = try folder.write("p.yaml", Self.pipeline(body: body))
        let run = try await ReformBinary.run(
            ["run", pipeline, "--live"], environment: ["TEST_URL": server.url, "TOKEN": Self.token], in: folder.path)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("status 401"), "\(run.stderr)")
        for echo in Self.echoes + ["QQ1core", "tail\\x"] {
            #expect(!run.stderr.contains(echo), "stderr shows \(echo): \(run.stderr)")
        }
        #expect(run.stderr.contains("denied: ***"), "\(run.stderr)")
        #expect(!run.stderr.utf8.contains(0x1B) && !run.stderr.utf8.contains(0x07), "raw escape bytes reached stderr")
        #expect(run.stderr.contains("\\u001b]0;PWNED\\u0007"), "\(run.stderr)")
    }

    @Test func theDiskCacheIsPrivate() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let pipeline = try folder.write("p.yaml", Self.pipeline(body: "x"))
        let run = try await ReformBinary.run(
            ["run", pipeline, "--live", "--run", "cached", "--quiet"], environment: ["TEST_URL": server.url, "TOKEN": Self.token],
            in: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        let cache = folder.path + "/.reform-cache/cached"
        let files = try FileManager.default.contentsOfDirectory(atPath: cache)
        #expect(files.count == 1)
        let folderMode = try FileManager.default.attributesOfItem(atPath: cache)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: cache + "/" + (files.first ?? ""))[.posixPermissions] as? Int
        #expect(folderMode == 0o700 && fileMode == 0o600)
    }
}
