import Foundation
import ReformTestSupport
import Testing

/// A server whose bytes never stop, through the real binary: the built-in client ends the
/// exchange at the request's deadline or the trailer limit, not when the server tires
/// (reliability audit r2 H5: a 5 s timeout ran 60 s at full CPU).
@Suite(.timeLimit(.minutes(10))) struct EndlessResponseTests {
    @Test func trailerFieldsWithoutEndAreCutOffAtTheHeadLimit() async throws {
        let server = try TestServer()
        let path = try HostileServerTests.pipeline(server, path: "/endless-trailers", params: "{ seconds: 20 }", timeout: "30s")
        let result = try await ReformBinary.run(
            ["run", path, "--live"], environment: [:], in: (path as NSString).deletingLastPathComponent)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("(the trailer fields are larger than 1048576 bytes)"), "\(result.stderr)")
    }

    @Test func bytesThatNeverStopEndAtTheRequestDeadline() async throws {
        let server = try TestServer()
        let path = try HostileServerTests.pipeline(server, path: "/endless-chunks", params: "{ seconds: 20 }", timeout: "1s")
        let result = try await ReformBinary.run(
            ["run", path, "--live"], environment: [:], in: (path as NSString).deletingLastPathComponent)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("GET /endless-chunks?page=1&seconds=20: no complete answer within 1.0 s; raise the 'timeout'"),
            "\(result.stderr)")
    }
}
