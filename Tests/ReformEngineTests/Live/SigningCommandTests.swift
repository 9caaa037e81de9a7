import ReformSDK
import ReformTestSupport
import Testing

/// `reform run --live / --record` of a signed service: the secret stays out of everything written.
extension LiveCommandTests {
    func signedPipeline(in folder: TemporaryFolder) throws -> String {
        try folder.write(
            "signed.yaml",
            """
            reform: 1
            services:
              api:
                base_url: "${TEST_URL}"
                interceptors:
                  - log
                  - sign:
                      algorithm: hmac-sha512
                      secret: ${API_SIGNING_SECRET}
                      header: X-Signature
                      encoding: base64
                      prefix: "v1="
                      message: "{method}\\n{path}\\n{query}\\n{timestamp}\\n{body_sha256}"
                      timestamp_header: X-Timestamp
            managers:
              signed: { service: api, path: /signed, params: { b: "x y", a: 1 }, records: items, fixtures: fixtures/signed }
              echo: { service: api, path: /echo, fixtures: fixtures/echo }
            runs:
              default: { managers: [signed, echo], output: { format: ndjson } }
            """)
    }

    @Test func aSignedServiceRecordsAndReplaysWithoutItsSecret() async throws {
        let server = try TestServer()
        try await server.checkSignatures(
            secret: "signing-s3cret-value", algorithm: "hmac-sha512", encoding: "base64", prefix: "v1=",
            message: "{method}\n{path}\n{query}\n{timestamp}\n{body_sha256}", maxSkew: 300)
        let folder = try TemporaryFolder()
        let pipeline = try signedPipeline(in: folder)
        let environment = ["TEST_URL": server.url, "API_SIGNING_SECRET": "signing-s3cret-value"]
        let recorded = try await reform(["run", pipeline, "--record", "--stats", "json"], environment: environment)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stdout.split(separator: "\n").count == 4, "3 signed records and the echo")
        let signed = try folder.read("fixtures/signed/001.json")
        let echo = try folder.read("fixtures/echo/001.json")
        #expect(!signed.contains("X-Signature") && !signed.contains("x-signature"), "request headers are not recorded: \(signed)")
        #expect(echo.contains("\"x-signature\": \"v1="), "the echoed signature is kept: it is no secret")
        for text in [signed, echo, recorded.stdout, recorded.stderr] {
            #expect(!text.contains("signing-s3cret-value"), "\(text)")
        }
        let replayed = try await reform(["run", pipeline, "--quiet"], environment: ["TEST_URL": "http://127.0.0.1:9"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout.split(separator: "\n").count == 4)
    }

    @Test func aWrongSigningSecretFailsWithTheServers401AndDoesNotPrintIt() async throws {
        let server = try TestServer()
        try await server.checkSignatures(
            secret: "the-right-key", algorithm: "hmac-sha512", encoding: "base64", prefix: "v1=",
            message: "{method}\n{path}\n{query}\n{timestamp}\n{body_sha256}")
        let folder = try TemporaryFolder()
        let pipeline = try signedPipeline(in: folder)
        let wrong = try await reform(
            ["run", pipeline, "--live", "--stats", "json"], environment: ["TEST_URL": server.url, "API_SIGNING_SECRET": "wrong-s3cret"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("status 401: the service rejected the credentials"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("wrong-s3cret") && !wrong.stdout.contains("wrong-s3cret"), "\(wrong.stderr)")
        let unset = try await reform(["run", pipeline, "--live"], environment: ["TEST_URL": server.url])
        #expect(unset.status == 1)
        #expect(unset.stderr.contains("API_SIGNING_SECRET"), "the error names the variable to set: \(unset.stderr)")
        #expect(
            unset.stderr.contains("export it before the run") && !unset.stderr.contains(":-value"),
            "a secret gets no advice to default it in the pipeline: \(unset.stderr)")
    }
}
