import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import ReformYAML
import Testing

/// GraphQL managers (`graphql:`) and request bodies written as templates (`body: { json: … }`,
/// `body: { form: … }`), against the test server's GitHub-like `/graphql` and `/echo`.
@Suite(.timeLimit(.minutes(10))) struct GraphQLTests {
    static let issuesQuery = """
        query($owner: String!, $repo: String!, $first: Int!, $after: String) {
          repository(owner: $owner, name: $repo) {
            issues(first: $first, after: $after) { nodes { number title } pageInfo { endCursor hasNextPage } }
          }
        }
        """

    /// A pipeline with one `graphql:` manager `issues` (params owner, repo, per_page, total).
    static func issues(runs: String = "") -> String {
        service()
            + """

            managers:
              issues:
                service: api
                params:
                  owner: { required: true }
                  repo: { required: true }
                  per_page: { type: int, default: 10 }
                  total: 25
                graphql:
                  query: |
            \(issuesQuery.split(separator: "\n").map { "          " + $0 }.joined(separator: "\n"))
                  variables: { owner: "{owner}", repo: "{repo}", first: "{per_page}" }
                  page_info: data.repository.issues.pageInfo
                records: data.repository.issues.nodes
            \(runs)
            """
    }

    @Test func aConnectionPagesByEndCursorUntilHasNextPageIsFalse() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(GraphQLTests.issues())
        // per_page comes as text, as from --param: the body sends the Int the query declares.
        let manager = try server.manager("issues", in: pipeline, params: ["owner": "o", "repo": "r", "per_page": "10"])
        let (records, pages, stop) = try await manager.loadAll()
        #expect(records.map { $0.objectValue?["number"] } == (1...25).map { .int($0) })
        #expect(pages == 3)
        #expect(stop == "no more pages")
        let sent = try await server.requests(path: "/graphql")
        #expect(sent.count == 3)
        #expect(sent.allSatisfy { $0["method"] == "POST" })
        // A param the template does not place (total) goes in the query string.
        #expect(sent.allSatisfy { $0["query"]?.objectValue?["total"] == "25" }, "\(sent)")
    }

    @Test func errorsInABodyWithStatus200FailTheManagerNamingMessagePathAndCode() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(GraphQLTests.issues())
        let manager = try server.manager("issues", in: pipeline, params: ["owner": "o", "repo": "missing"])
        do {
            _ = try await manager.load()
            Issue.record("a response with errors landed")
        } catch {
            #expect((error as? ManagerError)?.kind == .apiErrors)
            #expect(
                "\(error)".contains(
                    "page 1: the GraphQL response has errors: 'Could not resolve to a Repository with the name 'o/missing'.' "
                        + "(at path repository; code NOT_FOUND); nothing of this page was landed"),
                "\(error)")
        }
    }

    @Test func aJSONTemplatePlacesValuesAtAnyPathKeepingTheirTypes() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service()
                + """

                managers:
                  search:
                    service: api
                    path: /echo
                    method: POST
                    params: { owner: o, repo: r, limit: { type: int, default: 5 }, label: { required: false }, extra: x }
                    body:
                      json:
                        search: { q: "repo:{owner}/{repo} is:open", limit: "{limit}", label: "{label}" }
                        literal: "{ viewer { login } }"
                        list: ["{owner}", 2]
                """)
        let manager = try server.manager("search", in: pipeline)
        let echoed = try await manager.load().records[0]
        let body = try JSON.parse(echoed.objectValue?["body"]?.stringValue ?? "")
        #expect(
            body == [
                "search": ["q": "repo:o/r is:open", "limit": 5, "label": nil], "literal": "{ viewer { login } }", "list": ["o", 2],
            ])
        #expect(echoed.objectValue?["query"] == ["extra": "x"], "a param the template does not place goes in the query")
        #expect(echoed.objectValue?["headers"]?.objectValue?["content-type"] == "application/json")
    }

    @Test func aFormTemplateSendsItsFieldsAndLeavesOutOnesNotGiven() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service()
                + """

                managers:
                  token:
                    service: api
                    path: /echo
                    method: POST
                    params: { q: "a b&c", scope: { required: false } }
                    body: { form: { grant_type: client_credentials, q: "{q}", scope: "{scope}" } }
                """)
        let echoed = try await server.manager("token", in: pipeline).load().records[0]
        #expect(echoed.objectValue?["body"] == "grant_type=client_credentials&q=a%20b%26c")
        #expect(echoed.objectValue?["headers"]?.objectValue?["content-type"] == "application/x-www-form-urlencoded")
    }

    @Test func aRecordedGraphQLRunReplaysOffline() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let yaml = GraphQLTests.issues(runs: "runs: { default: { params: { owner: o, repo: r }, output: { format: ndjson } } }")
            .replacing("records: data", with: "fixtures: fixtures/issues\n    records: data")
        let pipeline = try folder.write("gql.yaml", yaml)
        let recorded = try await ReformBinary.run(["run", pipeline, "--record", "--quiet"], environment: ["TEST_URL": server.url])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/fixtures/issues").sorted()
        #expect(names == ["001.json", "002.json", "003.json"])
        let replayed = try await ReformBinary.run(["run", pipeline, "--quiet"], environment: ["TEST_URL": "http://127.0.0.1:9"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout == recorded.stdout)
        #expect(replayed.stdout.split(separator: "\n").count == 25)
    }

    @Test func aFanOutRunsTheQueryOncePerPartition() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let yaml = GraphQLTests.issues(runs: "runs: { default: { params: { owner: o }, output: { format: ndjson } } }")
            .replacing("    records: data", with: "    for_each: { param: repo, values: [r, s] }\n    records: data")
        let pipeline = try folder.write("fan.yaml", yaml)
        let run = try await ReformBinary.run(["run", pipeline, "--live", "--quiet"], environment: ["TEST_URL": server.url])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 50)
        #expect(
            lines.first?.contains(#""repository":"o/r""#) == true && lines.last?.contains(#""repository":"o/s""#) == true, "\(run.stdout)")
        #expect(try await server.requests(path: "/graphql").count == 6)
    }

    @Test func mistakesAreNamedWhereTheyAre() throws {
        func manager(_ lines: String) -> String {
            "reform: 1\nservices: { api: { base_url: \"http://x.test\" } }\nmanagers:\n  m:\n    service: api\n" + lines
        }
        #expect(
            try loadDiagnostics(manager("    graphql: { query: \"{ a }\", query_file: q.graphql }\n")) == [
                "p.yaml:6:14: error: 'graphql' of manager 'm' has both 'query' and 'query_file'; give one"
            ])
        #expect(
            try loadDiagnostics(manager("    method: GET\n    graphql: { query: \"{ a }\" }\n")) == [
                "p.yaml:6:13: error: a 'graphql' manager sends a POST; remove 'method' from manager 'm'"
            ])
        #expect(
            try loadDiagnostics(manager("    graphql: { query: \"{ a }\" }\n    body: json\n")) == [
                "p.yaml:7:11: error: manager 'm' has both 'graphql' and 'body'; 'graphql' writes the body (its query and variables)"
            ])
        #expect(
            try loadDiagnostics(manager("    graphql: { query: \"{ a }\", cursor: after }\n")) == [
                "p.yaml:6:40: error: 'cursor' and 'max_pages' in 'graphql' of manager 'm' are of the paging page_info makes "
                    + "(the variable its endCursor goes to, the most pages); add 'page_info'"
            ])
        #expect(
            try loadDiagnostics(manager("    body: { json: { a: 1 }, form: { b: 2 } }\n")) == [
                "p.yaml:6:11: error: 'body' of manager 'm' is one of: 'json: {…}' (a JSON template) or 'form: {…}' (form fields)"
            ])
        #expect(
            try loadDiagnostics(manager("    body: { form: { a: [1, 2] } }\n")) == [
                "p.yaml:6:19: error: 'body.form' of manager 'm' is a mapping of field names to values (text, numbers, booleans, {param}), not nested data"
            ])
    }

    @Test func aPlaceholderThatNamesNoParamIsAWarningWithTheNearestName() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "p.yaml",
            "reform: 1\nservices: { api: { base_url: \"http://x.test\" } }\n"
                + "managers: { m: { service: api, method: POST, params: { owner: o }, body: { json: { q: \"{ownr}\" } } } }\n")
        let pipeline = try PipelineLoader(environment: [:]).load(path: path)
        #expect(
            pipeline.warnings.map { $0.message } == [
                "'body.json' of manager 'm' has {ownr}, which names none of the manager's params, so it is sent as written; did you mean 'owner'?"
            ])
    }
}
