import Foundation
import ReformEngine
import ReformInit
import ReformTestSupport
import Testing

/// `reform init --openapi`: pipelines written from OpenAPI documents (3.0 and 3.1, JSON and YAML),
/// pinned by golden files, each loading without an error; the test server's own document turned
/// into a pipeline whose every run pages to the end live; located errors for broken documents.
///
/// Re-record the goldens after an intended change with `RECORD_GOLDENS=1 swift test --filter
/// InitOpenAPITests` and review the diff of `Tests/ReformEngineTests/Init/Goldens/`.
@Suite(.timeLimit(.minutes(10))) struct InitOpenAPITests {
    static let documents = ProjectRoot.path + "/Tests/ReformEngineTests/Init/Documents"
    static let goldens = ProjectRoot.path + "/Tests/ReformEngineTests/Init/Goldens"

    struct Case: Sendable, CustomTestStringConvertible {
        let document: String
        var only: [String] = []
        var name: String? = nil
        let golden: String
        var testDescription: String { golden }
    }

    static let cases: [Case] = [
        Case(document: ProjectRoot.path + "/Tests/Server/openapi.json", golden: "reform-test-server.yaml"),
        Case(document: documents + "/shop-3.0.yaml", golden: "acme-shop.yaml"),
        Case(document: documents + "/shop-3.0.yaml", only: ["catalog", "/reports/*"], name: "catalog", golden: "catalog.yaml"),
        Case(document: documents + "/tracker-3.1.yaml", golden: "tracker.yaml"),
        Case(document: documents + "/petstore-3.0.yaml", golden: "petstore.yaml"),
    ]

    @Test(arguments: cases) func writesTheGoldenPipelineAndItLoads(_ test: Case) async throws {
        var options = OpenAPIInitOptions(source: "DOCUMENT", command: "reform init --openapi DOCUMENT")
        options.only = test.only
        options.name = test.name
        let loaded = try await OpenAPIDocumentLoader().load(from: test.document)
        let result = try OpenAPIPipelineBuilder(loaded, options: options).build()
        let yaml = result.draft.yaml(schemaLine: "# yaml-language-server: $schema=pipeline.schema.json")
        let golden = Self.goldens + "/" + test.golden
        if ProcessInfo.processInfo.environment["RECORD_GOLDENS"] != nil {
            try yaml.write(toFile: golden, atomically: true, encoding: .utf8)
        }
        #expect(yaml == (try String(contentsOfFile: golden, encoding: .utf8)), "differs from \(test.golden)")
        // It loads as written: no error (a fixtures folder not recorded yet is only a warning).
        let pipeline = try PipelineLoader(environment: [:]).load(bytes: Array(yaml.utf8), file: test.golden, folder: Scratch.folder)
        #expect(pipeline.managers.count == result.managers.count)
    }

    @Test func theTestServersOwnDocumentPagesToTheEndInEveryStyle() async throws {
        let server = try TestServer()
        let folder = Scratch.path("init")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let written = try await ReformBinary.run(["init", "--openapi", server.url + "/openapi.json"], environment: [:], in: folder)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("wrote ./reform-test-server.yaml: 9 managers"))
        #expect(written.stdout.contains("GET /html (html): responds with text/html, not JSON"))
        let expected = [
            "list_paged_by_page": 47, "list_paged_by_offset": 47, "list_paged_by_cursor": 47, "list_paged_by_cursor_header": 47,
            "list_paged_by_link": 47, "list_paged_by_next_url": 47, "list_keyed_items": 3, "repos_list_for_org": 4,
            "issues_list_for_repo": 8,
        ]
        for (run, count) in expected {
            let outcome = try await ReformBinary.run(
                ["run", "reform-test-server.yaml", "--run", run, "--live", "--quiet"],
                environment: ["REFORM_TEST_SERVER_KEY_API_KEY": "k-123"],
                in: folder)
            #expect(outcome.status == 0, "\(run): \(outcome.stderr)")
            let lines = (try? String(contentsOfFile: "\(folder)/out/\(run).ndjson", encoding: .utf8))?.split(separator: "\n") ?? []
            #expect(lines.count == count, "\(run)")
        }
        // A second init leaves the pipeline alone, unless --force.
        let again = try await ReformBinary.run(["init", "--openapi", server.url + "/openapi.json"], environment: [:], in: folder)
        #expect(again.status == 64, "a usage error")
        #expect(again.stderr.contains("./reform-test-server.yaml exists; reform init leaves it alone (--force replaces it"))
        let forced = try await ReformBinary.run(
            ["init", "--openapi", server.url + "/openapi.json", "--force"], environment: [:], in: folder)
        #expect(forced.status == 0)
    }

    /// `--record`: each run sent live once, its pages recorded (at most `--pages`), `max_pages`
    /// kept where more pages remain, and a test per recorded run that passes offline; a run whose
    /// secret is not set is left out, saying why.
    @Test func recordWritesFixturesAndAPassingTestPerRun() async throws {
        let server = try TestServer()
        let folder = Scratch.path("init-record")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let document = server.url + "/openapi.json"
        let written = try await ReformBinary.run(
            ["init", "--openapi", document, "--record", "--pages", "2"], environment: ["REFORM_TEST_SERVER_KEY_API_KEY": "k-123"],
            in: folder)
        #expect(written.status == 0, "\(written.stderr)")
        for run in ["list_paged_by_page", "list_paged_by_offset", "list_paged_by_cursor", "list_paged_by_link", "list_paged_by_next_url"] {
            #expect(written.stdout.contains("recorded \(run): 2 pages, 20 records (stopped: max_pages (2))"), "\(run): \(written.stdout)")
        }
        #expect(written.stdout.contains("recorded repos_list_for_org: 1 page, 4 records (stopped: no next link)"), "\(written.stdout)")
        #expect(written.stdout.contains("wrote ./reform-test-server.test.yaml: 9 tests, passing against the recorded pages"))
        let yaml = try String(contentsOfFile: folder + "/reform-test-server.yaml", encoding: .utf8)
        #expect(yaml.components(separatedBy: "remove max_pages to read them all").count - 1 == 6, "\(yaml)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out"), "the recording runs' outputs are not left beside the pipeline")
        // The pipeline recorded with is loaded from memory: no hidden file beside it at any time.
        let hidden = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty, "\(hidden)")
        let validated = try await ReformBinary.run(
            ["validate", "reform-test-server.yaml", "reform-test-server.test.yaml"], environment: [:], in: folder)
        #expect(validated.status == 0 && !validated.stderr.contains("warning"), "\(validated.stderr)")
        let tested = try await ReformBinary.run(["test", "reform-test-server.yaml"], environment: [:], in: folder)
        #expect(tested.status == 0 && tested.stdout.contains("9 passed, 0 failed"), "\(tested.stdout)\(tested.stderr)")

        let pagesAlone = try await ReformBinary.run(["init", "--openapi", document, "--pages", "3"], environment: [:], in: folder)
        #expect(pagesAlone.status == 64 && pagesAlone.stderr.contains("--pages goes with --url URL or --openapi SPEC --record"))
        // Without the key, its run is left out and said so; the test file is not written over.
        let again = try await ReformBinary.run(["init", "--openapi", document, "--record"], environment: [:], in: folder)
        #expect(again.status == 64 && again.stderr.contains("exists; reform init leaves it alone"), "\(again.stderr)")
        let other = Scratch.path("init-record-nokey")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        let keyless = try await ReformBinary.run(["init", "--openapi", document, "--record"], environment: [:], in: other)
        #expect(keyless.status == 0, "\(keyless.stderr)")
        #expect(
            keyless.stdout.contains(
                "not recorded list_keyed_items: manager 'list_keyed_items': GET /auth/key: 'auth.api_key' of service "
                    + "'reform-test-server-key': environment variable 'REFORM_TEST_SERVER_KEY_API_KEY' is not set"),
            "\(keyless.stdout)")
        #expect(keyless.stdout.contains("8 tests, passing against the recorded pages"), "\(keyless.stdout)")
    }

    @Test func aBrokenDocumentIsNamedAtItsLineAndColumn() async throws {
        let cases: [(String, String)] = [
            ("invalid-parameter.yaml", "invalid-parameter.yaml:7:11: Found neither a $ref nor a Parameter"),
            ("swagger-2.json", "swagger-2.json:1:13: this is a Swagger 2.0 document; reform init reads OpenAPI 3"),
            ("not-openapi.yaml", "not-openapi.yaml:1:1: expected an OpenAPI document: it has no 'openapi: 3.x' version"),
        ]
        for (file, message) in cases {
            do {
                _ = try await OpenAPIDocumentLoader().load(from: Self.documents + "/" + file)
                Issue.record("\(file) loaded")
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
        let outcome = try await ReformBinary.run(
            ["init", "--openapi", Self.documents + "/invalid-parameter.yaml"], environment: [:], in: Scratch.folder)
        #expect(outcome.status == 2, "an invalid input")
        #expect(outcome.stderr.contains("Cannot initialize Location from invalid String value body"))
    }
}
