import Foundation
import ReformTestSupport
import Testing

/// `--record` replaces only the exchange files of a fixtures folder and can always run again
/// (reliability audit D22).
@Suite(.timeLimit(.minutes(10))) struct RecordingFolderTests {
    @Test func recordingKeepsWhatIsNotAnExchangeAndRunsAgain() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let pipeline = try folder.write(
            "rec.yaml",
            """
            reform: 1
            services: { api: { base_url: "${TEST_URL}" } }
            managers:
              pages:
                service: api
                path: /paged/cursor
                params: { limit: 4, total: 10 }
                records: items
                paging: { policy: cursor, param: cursor, token: next_cursor }
                fixtures: fixtures/pages
            runs: { default: { output: { format: ndjson } } }
            """)
        try folder.write("fixtures/pages/NOTES.txt", "how these were recorded\n")
        try folder.write("fixtures/pages/old-notes/n.txt", "older notes\n")
        try folder.write("fixtures/pages/009.json", "{\"request\":{},\"response\":{}}\n")
        for round in 1...2 {
            let recorded = try await ReformBinary.run(["run", pipeline, "--record", "--quiet"], environment: ["TEST_URL": server.url])
            #expect(recorded.status == 0, "round \(round): \(recorded.stderr)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/fixtures/pages").sorted()
        #expect(names == ["001.json", "002.json", "003.json", "NOTES.txt", "old-notes"])
        #expect(try folder.read("fixtures/pages/NOTES.txt") == "how these were recorded\n")
        #expect(try folder.read("fixtures/pages/old-notes/n.txt") == "older notes\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/fixtures").sorted() == ["pages"])
        let replayed = try await ReformBinary.run(["run", pipeline, "--quiet"], environment: ["TEST_URL": "http://127.0.0.1:9"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout.split(separator: "\n").count == 10)
    }
}
