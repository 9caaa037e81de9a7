import Foundation
import ReformTestSupport
import Testing

/// `${exec:NAME}` answered by the pipeline's `secrets:` command (Vector's exec protocol): asked
/// once before a live or recording run, never for a replay, its answers kept out of every file
/// and message, and each way it can fail said in one line.
@Suite(.timeLimit(.minutes(10))) struct ExecSecretsTests {
    /// A secrets command that answers `api_key` (and names what it was asked in `asked.txt`).
    static let script = """
        #!/usr/bin/env python3
        import json, sys
        request = json.load(sys.stdin)
        open("asked.txt", "w").write(" ".join(request["secrets"]))
        known = {"api_key": "k-123"}
        answer = {name: {"value": known.get(name), "error": None if name in known else f"no secret called {name}"}
                  for name in request["secrets"]}
        print(json.dumps(answer))
        """

    static func pipeline(secret: String = "api_key", secrets: String = "secrets: { command: [./secrets.py] }") -> String {
        """
        reform: 1
        \(secrets)
        services:
          api: { base_url: "${TEST_URL}", headers: { X-API-Key: "${exec:\(secret)}" } }
        managers:
          m: { service: api, path: /auth/key, records: items, fixtures: fixtures/m }
        runs: { default: { output: { format: ndjson } } }
        """
    }

    private func folder(_ yaml: String, script: String = ExecSecretsTests.script) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("p.yaml", yaml)
        try folder.write("secrets.py", script)
        chmod(folder.path + "/secrets.py", 0o755)
        return folder
    }

    @Test func aLiveRunSendsTheCommandsAnswerAndWritesItNowhere() async throws {
        let server = try TestServer()
        let folder = try folder(ExecSecretsTests.pipeline())
        let run = try await ReformBinary.run(
            ["run", "p.yaml", "--record", "-vv"], environment: ["TEST_URL": server.url], in: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 3)
        #expect(try folder.read("asked.txt") == "api_key")
        #expect(!run.stderr.contains("k-123") && !run.stdout.contains("k-123"))
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path + "/fixtures/m") {
            #expect(try !folder.read("fixtures/m/" + name).contains("k-123"), "\(name)")
        }
        // A replay sends nothing, so nothing is asked.
        try FileManager.default.removeItem(atPath: folder.path + "/asked.txt")
        let replay = try await ReformBinary.run(["run", "p.yaml", "--quiet"], environment: ["TEST_URL": server.url], in: folder.path)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/asked.txt"))
    }

    @Test func validateCheckEnvAsksTheCommandAsARunWould() async throws {
        let server = try TestServer()
        let folder = try folder(ExecSecretsTests.pipeline())
        let checked = try await ReformBinary.run(
            ["validate", "p.yaml", "--check-env", "--check-path", "api=/auth/key"], environment: ["TEST_URL": server.url], in: folder.path)
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.contains("ok: service 'api'"), "\(checked.stdout)")
        #expect(try folder.read("asked.txt") == "api_key")
    }

    @Test(arguments: [
        (pipeline(secret: "nope"), script, "the secrets command (./secrets.py): could not give 'nope': no secret called nope"),
        (
            pipeline(secrets: "secrets: { command: [./secrets.py], timeout: 200ms }"), "#!/bin/sh\nsleep 5\n",
            "the secrets command (./secrets.py): gave no answer within 0.2 s; it was stopped"
        ),
        (
            pipeline(), "#!/bin/sh\necho 'vault is sealed' >&2\nexit 3\n",
            "the secrets command (./secrets.py): exited with status 3: vault is sealed"
        ),
        (pipeline(), "#!/bin/sh\necho not json\n", "the secrets command (./secrets.py): did not answer a JSON object"),
        (pipeline(secrets: ""), script, "the pipeline uses ${exec:api_key}, but declares no 'secrets: { command: … }' to answer it"),
    ])
    func eachFailureStopsTheRunBeforeAnyRequestSayingWhy(yaml: String, script: String, message: String) async throws {
        let server = try TestServer()
        let folder = try folder(yaml, script: script)
        let run = try await ReformBinary.run(["run", "p.yaml", "--live"], environment: ["TEST_URL": server.url], in: folder.path)
        #expect(run.status != 0)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(try await server.requests(path: "/auth/key").isEmpty)
    }
}
