import Foundation
import ReformTestSupport
import Testing

/// `reform init --url`: one live GET of the test server's APIs, the records and paging read from
/// what came back, the pages recorded, and a pipeline that validates, replays offline and passes
/// its written test — secrets never written, nothing written when the GET fails.
@Suite(.timeLimit(.minutes(10))) struct InitURLTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let url: String
        let name: String
        let summary: String
        let lines: Int
        var testDescription: String { url }
    }

    static let cases: [Case] = [
        Case(url: "/paged/link?per_page=20", name: "link", summary: "records at ., paging: link, 4 keys", lines: 40),
        Case(url: "/paged/cursor?limit=20", name: "cursor", summary: "records at items, paging: cursor, 4 keys", lines: 40),
        Case(url: "/paged/page?page=1&per_page=20", name: "page", summary: "records at data.items, paging: page, 4 keys", lines: 40),
        Case(url: "/paged/next-url?per_page=20", name: "next-url", summary: "records at results, paging: next-url, 4 keys", lines: 40),
        Case(url: "/paged/offset?offset=0&limit=20", name: "offset", summary: "records at items, paging: offset, 4 keys", lines: 40),
        Case(url: "/csv?page=1&per_page=20", name: "csv", summary: "records at ., paging: page, 5 keys", lines: 40),
        Case(url: "/gh/orgs/acme/repos?per_page=2", name: "repos", summary: "records at ., paging: link, 6 keys", lines: 4),
        Case(url: "/xml/rss?page=1&per_page=20", name: "rss", summary: "records at rss.channel.item, paging: page, 9 keys", lines: 40),
        Case(
            url: "/xml/soap", name: "soap", summary: "records at Envelope.Body.GetOrdersResponse.Order, paging: none, 5 keys", lines: 2),
    ]

    @Test(arguments: cases)
    func aPipelineFromOneURLValidatesReplaysAndPassesItsTest(_ test: Case) async throws {
        let server = try TestServer()
        let folder = Scratch.path("init-url-\(test.name)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let written = try await ReformBinary.run(["init", "--url", server.url + test.url], environment: [:], in: folder)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.hasPrefix("wrote ./\(test.name).yaml: \(test.summary)\n"), "\(written.stdout)")
        let validated = try await ReformBinary.run(
            ["validate", "\(test.name).yaml", "\(test.name).test.yaml"], environment: [:], in: folder)
        #expect(validated.status == 0 && !validated.stderr.contains("warning"), "\(validated.stderr)")
        // Offline, at a server that is not there: the recorded pages.
        let run = try await ReformBinary.run(["run", "\(test.name).yaml", "--quiet"], environment: [:], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == test.lines)
        let tested = try await ReformBinary.run(["test", "\(test.name).yaml"], environment: [:], in: folder)
        #expect(tested.status == 0 && tested.stdout.contains("1 passed, 0 failed"), "\(tested.stdout)\(tested.stderr)")
        // The paging works live as it was recorded: the same records.
        let live = try await ReformBinary.run(["run", "\(test.name).yaml", "--live", "--quiet"], environment: [:], in: folder)
        #expect(live.stdout == run.stdout, "\(live.stderr)")
    }

    @Test func moreThanTheRecordedPagesAreKeptToThemAndSaidSo() async throws {
        let server = try TestServer()
        let folder = Scratch.path("init-url-pages")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let written = try await ReformBinary.run(
            ["init", "--url", server.url + "/paged/cursor?limit=5", "--pages", "3", "--name", "items"], environment: [:], in: folder)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("recorded 3 pages, 15 records, in ./fixtures/items (stopped: max_pages (3))"), "\(written.stdout)")
        let yaml = try String(contentsOfFile: folder + "/items.yaml", encoding: .utf8)
        #expect(
            yaml.contains(
                "paging: { policy: cursor, param: cursor, token: next_cursor, max_pages: 3 }  # 'cursor' is a guess from the response's "
                    + "'next_cursor': check the API's name for it; reform init recorded 3 pages: remove max_pages to read them all"),
            "\(yaml)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/fixtures/items").sorted() == [
                "001.json", "002.json", "003.json",
            ])
    }

    @Test func aSecretIsReadFromItsVariableAndNeverWritten() async throws {
        let server = try TestServer()
        let folder = Scratch.path("init-url-secret")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let refused = try await ReformBinary.run(
            ["init", "--url", server.url + "/auth/key", "--header", "X-API-Key: k-123"], environment: [:], in: folder)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--header 'X-API-Key' holds a secret written out: reform init never writes one into a file"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)

        let written = try await ReformBinary.run(
            ["init", "--url", server.url + "/auth/key", "--header", "X-API-Key: ${API_KEY}"], environment: ["API_KEY": "k-123"], in: folder)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try String(contentsOfFile: folder + "/key.yaml", encoding: .utf8).contains(#"headers: { X-API-Key: "${API_KEY}" }"#))
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder)
        for file in files {
            guard let text = try? String(contentsOfFile: folder + "/" + file, encoding: .utf8) else { continue }  // a folder
            #expect(!text.contains("k-123"), "\(file) holds the key")
        }
        let live = try await ReformBinary.run(["run", "key.yaml", "--live", "--quiet"], environment: ["API_KEY": "k-123"], in: folder)
        #expect(live.status == 0 && live.stdout.split(separator: "\n").count == 3, "\(live.stderr)")
    }

    @Test func aFailedGetWritesNothingAndExistingFilesAreLeftAlone() async throws {
        let server = try TestServer()
        let folder = Scratch.path("init-url-fail")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let missing = try await ReformBinary.run(["init", "--url", server.url + "/nope"], environment: [:], in: folder)
        #expect(missing.status == 1)
        #expect(
            missing.stderr.contains("reform: the first page did not come: manager 'nope': GET /nope: page 1: status 404"),
            "\(missing.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)

        #expect(try await ReformBinary.run(["init", "--url", server.url + "/echo?x=1"], environment: [:], in: folder).status == 0)
        let again = try await ReformBinary.run(["init", "--url", server.url + "/echo?x=1"], environment: [:], in: folder)
        #expect(again.status == 64)
        #expect(again.stderr.contains("./echo.yaml exists; reform init leaves it alone (--force replaces it"))
        let yaml = try String(contentsOfFile: folder + "/echo.yaml", encoding: .utf8)
        #expect(yaml.contains("# the body is one object, not a list: each request lands it as one record"))
    }

    static let issuesQuery =
        "query($owner: String!, $repo: String!, $first: Int!, $after: String) { repository(owner: $owner, name: $repo) { "
        + "issues(first: $first, after: $after) { nodes { number title } pageInfo { endCursor hasNextPage } } } }"

    /// `reform init --url SERVER/graphql --graphql QUERY` with `arguments` after it, in `folder`.
    func initGraphQL(_ server: TestServer, _ query: String, _ arguments: [String], in folder: String) async throws -> ReformBinary.Outcome {
        try await ReformBinary.run(
            ["init", "--url", server.url + "/graphql", "--graphql", query] + arguments, environment: [:], in: folder)
    }

    /// `--graphql`: the query POSTed with its `--variable` values, the connection's nodes the
    /// records, its pageInfo the paging (the cursor into `$after`), the query in its own file; the
    /// pages recorded, `graphql.max_pages` keeping the run to them, and the test passing.
    @Test func aGraphQLQueryBecomesAManagerThatPagesThroughItsPageInfo() async throws {
        let server = try TestServer()
        let folder = Scratch.path("init-url-graphql")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let written = try await initGraphQL(
            server, Self.issuesQuery,
            ["--variable", "owner=acme", "--variable", "repo=widgets", "--variable", "first=20", "--name", "issues"],
            in: folder)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(
            written.stdout.hasPrefix("wrote ./issues.yaml: records at data.repository.issues.nodes, paging: graphql page_info, 3 keys\n"),
            "\(written.stdout)")
        #expect(written.stdout.contains("recorded 2 pages, 40 records, in ./fixtures/issues (stopped: max_pages (2))"), "\(written.stdout)")
        let yaml = try String(contentsOfFile: folder + "/issues.yaml", encoding: .utf8)
        for line in [
            "    path: /graphql", "    params: { owner: acme, repo: widgets, first: 20 }", "      query_file: queries/issues.graphql",
            #"      variables: { owner: "{owner}", repo: "{repo}", first: "{first}" }"#, "      page_info: data.repository.issues.pageInfo",
            "      max_pages: 2  # reform init recorded 2 pages: remove max_pages to read them all",
            "    records: data.repository.issues.nodes",
        ] {
            #expect(yaml.contains(line + "\n"), "\(line)\n\(yaml)")
        }
        #expect(try String(contentsOfFile: folder + "/queries/issues.graphql", encoding: .utf8) == Self.issuesQuery + "\n")
        let validated = try await ReformBinary.run(["validate", "issues.yaml", "issues.test.yaml"], environment: [:], in: folder)
        #expect(validated.status == 0 && !validated.stderr.contains("warning"), "\(validated.stderr)")
        let run = try await ReformBinary.run(["run", "issues.yaml", "--quiet"], environment: [:], in: folder)
        #expect(run.status == 0 && run.stdout.split(separator: "\n").count == 40, "\(run.stderr)")
        let tested = try await ReformBinary.run(["test", "issues.yaml"], environment: [:], in: folder)
        #expect(tested.status == 0 && tested.stdout.contains("1 passed, 0 failed"), "\(tested.stdout)\(tested.stderr)")
        let live = try await ReformBinary.run(["run", "issues.yaml", "--live", "--quiet"], environment: [:], in: folder)
        #expect(live.stdout == run.stdout, "\(live.stderr)")
        // Without max_pages, live, every page: 47 issues.
        try yaml.replacingOccurrences(
            of: "      max_pages: 2  # reform init recorded 2 pages: remove max_pages to read them all\n", with: ""
        )
        .write(toFile: folder + "/issues.yaml", atomically: true, encoding: .utf8)
        let all = try await ReformBinary.run(["run", "issues.yaml", "--live", "--quiet"], environment: [:], in: folder)
        #expect(all.status == 0 && all.stdout.split(separator: "\n").count == 47, "\(all.stderr)")
    }

    /// A query with no cursor variable is sent once, saying how to page; GraphQL errors and
    /// variables the query does not declare write nothing.
    @Test func aGraphQLQueryThatCannotPageSaysSoAndErrorsWriteNothing() async throws {
        let server = try TestServer()
        let folder = Scratch.path("init-url-graphql-once")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let missing = try await initGraphQL(
            server, Self.issuesQuery, ["--variable", "owner=acme", "--variable", "repo=missing", "--variable", "first=5"], in: folder)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("Could not resolve to a Repository with the name 'acme/missing'."), "\(missing.stderr)")
        let elsewhere = try await initGraphQL(
            server, Self.issuesQuery,
            ["--variable", "owner=acme", "--variable", "repo=widgets", "--variable", "first=5", "--records", "data.issues"], in: folder)
        #expect(elsewhere.status == 1)
        #expect(elsewhere.stderr.contains("--records 'data.issues' is not a list in the answer to the query"), "\(elsewhere.stderr)")
        let undeclared = try await initGraphQL(server, Self.issuesQuery, ["--variable", "state=open"], in: folder)
        #expect(undeclared.status == 1)
        #expect(undeclared.stderr.contains("--variable state: the query declares no $state"), "\(undeclared.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)

        let once =
            "query($owner: String!, $repo: String!) { repository(owner: $owner, name: $repo) { "
            + "issues(first: 5) { nodes { number title } pageInfo { endCursor hasNextPage } } } }"
        let written = try await initGraphQL(server, once, ["--variable", "owner=acme", "--variable", "repo=widgets"], in: folder)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("paging: none"), "\(written.stdout)")
        #expect(
            written.stdout.contains(
                "note: the query declares no cursor variable ($after: String) for data.repository.issues.pageInfo: declare one"),
            "\(written.stdout)")
        let run = try await ReformBinary.run(["run", "graphql.yaml", "--quiet"], environment: [:], in: folder)
        #expect(run.status == 0 && run.stdout.split(separator: "\n").count == 10, "\(run.stderr)")
    }
}
