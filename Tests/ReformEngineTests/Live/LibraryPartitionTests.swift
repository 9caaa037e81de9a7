import Foundation
import ReformEngine
import ReformSDK
import Testing

/// Partitions and saved state from Swift, without a run: the managers of a fan-out, each with its
/// partition's parameters and the `since` its saved bookmark gives.
@Suite(.timeLimit(.minutes(10))) struct LibraryPartitionTests {
    static let pipeline = """
        reform: 1
        services:
          github: { base_url: "${TEST_URL}/gh" }
        managers:
          issues:
            service: github
            path: /repos/acme/{repo}/issues
            params: { repo: { required: true }, state: all, per_page: 5 }
            paging: { policy: link }
            for_each: { param: repo, values: [widgets, gadgets] }
            incremental: { cursor: updated_at, param: since }
          repos:
            service: github
            path: /orgs/acme/repos
        """

    @Test func partitionedManagersAskFromTheBookmarksTheStateIsGiven() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(Self.pipeline)
        let plan = try #require(pipeline.manager(named: "issues"))
        let service = try #require(pipeline.services.first)
        let client = try ServiceClient(service: service, environment: ["TEST_URL": server.url])
        let folder = try TemporaryFolder()
        let statePath = folder.path + "/issues.state.json"

        func fetchAll() async throws -> [String: Int] {
            var state = try StateStore.load(path: statePath)
            let partitions = try #require(plan.partitions).partitions(params: [:])
            var counts: [String: Int] = [:]
            for (partition, manager) in APIManager.partitioned(plan: plan, client: client, partitions: partitions, state: state) {
                var landing = try await manager.load()
                var records = landing.records
                while !landing.isLast, let next = try await manager.loadNextPage() {
                    landing = next
                    records += next.records
                }
                state.advance(plan, partition: partition.label, past: records)
                counts[partition.label] = records.count
            }
            try state.save()
            return counts
        }

        #expect(try await fetchAll() == ["repo=widgets": 12, "repo=gadgets": 12])
        #expect(try StateStore.load(path: statePath).bookmarks(of: "issues")["repo=widgets"] == .string("2026-01-01T00:12:00Z"))
        try await server.post("/gh/_admin/advance", #"{"touch": 1, "add": 1}"#)
        // Since the bookmark (inclusive, as GitHub's since is): the last one seen, the touched and the new one.
        #expect(try await fetchAll() == ["repo=widgets": 3, "repo=gadgets": 3])
        let sent = try await server.requests(path: "/gh/repos/acme/widgets/issues").compactMap { $0["query"]?.objectValue?["since"] }
        #expect(sent == [.string("2026-01-01T00:12:00Z")])
    }

    @Test func partitionsComeFromParentRecordsToo() throws {
        let plan = try TestServerless.plan(
            """
            reform: 1
            managers:
              repos: { path: /orgs/acme/repos }
              issues:
                path: /repos/{owner}/{repo}/issues
                params: { owner: { required: true }, repo: { required: true } }
                for_each: { manager: repos, params: { owner: owner.login, repo: name } }
            """, manager: "issues")
        let parents: [Value] = [
            ["name": "widgets", "owner": ["login": "acme"]], ["name": "widgets", "owner": ["login": "acme"]], ["id": 3],
            ["name": "gadgets", "owner": ["login": "acme"]],
        ]
        let partitions = try #require(plan.partitions).partitions(fromParentRecords: parents)
        #expect(partitions.map(\.label) == ["owner=acme, repo=widgets", "owner=acme, repo=gadgets"])
        #expect(throws: SourceError.self) { try plan.partitions?.partitions(params: [:]) }
    }
}

/// Pipelines loaded from text, for tests that need a plan and no server.
enum TestServerless {
    static func plan(_ yaml: String, manager: String) throws -> ManagerPlan {
        let folder = try TemporaryFolder()
        let path = try folder.write("pipeline.yaml", yaml)
        let pipeline = try PipelineLoader(environment: [:]).load(path: path)
        guard let plan = pipeline.manager(named: manager) else { throw ServerStartError(output: "no manager \(manager)") }
        return plan
    }
}
