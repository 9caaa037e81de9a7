import Foundation
import ReformEngine
import ReformSDK
import Testing

/// The code of the DocC article "Embedding Reform in a Swift program"
/// (Sources/ReformEngine/ReformEngine.docc/EmbeddingReform.md), against the loopback server:
/// when the API changes, this stops compiling and the article is updated with it.
@Suite(.timeLimit(.minutes(10))) struct EmbeddingArticleTests {
    static let yaml =
        service()
            + """

            managers:
              items:
                service: api
                path: /paged/offset
                params: { limit: 5, total: 12 }
                records: items
                paging: { policy: offset, param: offset, size_param: limit }
                budget: { max_pages: 2 }
            runs:
              default: { managers: [items], output: { format: ndjson, path: /dev/null } }
            """

    /// The article's pipeline with room for its 12 records, and options for a live run of it
    /// against `server`.
    static func liveRun(on server: TestServer) throws -> (Pipeline, RunOptions) {
        let pipeline = try server.pipeline(yaml.replacingOccurrences(of: "max_pages: 2", with: "max_pages: 10"))
        var options = RunOptions()
        options.mode = .live
        options.environment = ["TEST_URL": server.url]
        return (pipeline, options)
    }

    @Test func runAPipelineAndTellItsFailuresApart() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let path = try folder.write("pipeline.yaml", Self.yaml.replacingOccurrences(of: "max_pages: 2", with: "max_pages: 10"))
        // As in the article.
        let pipeline = try PipelineLoader(environment: ["TEST_URL": server.url]).load(path: path)
        var options = RunOptions()
        options.mode = .live
        options.environment = ["TEST_URL": server.url]
        let summary = try await Runner(pipeline: pipeline, options: options).run()
        #expect(summary.description == "reform: 12 in, 12 out, 0 rejected")

        let tight = try server.pipeline(Self.yaml)
        var reported = ""
        do {
            _ = try await Runner(pipeline: tight, options: options).run()
        } catch {
            switch error.managerError?.kind {
            case .budgetExceeded?: reported = "spent its budget: " + error.message
            case .timeout?: reported = "too slow: " + error.message
            default: reported = error.message
            }
        }
        #expect(reported.hasPrefix("spent its budget: manager 'items'"))
    }

    @Test func useAPipelineWithoutFiles() async throws {
        let server = try TestServer()
        let (pipeline, options) = try Self.liveRun(on: server)
        // As in the article.
        var totals: [String: Double] = [:]
        let records = Runner(pipeline: pipeline, options: options).records()
        for try await record in records where record.output == 0 {
            totals[record.origin.manager.name, default: 0] += record.value.objectValue?["price"]?.doubleValue ?? 0
        }
        #expect(records.summary?.recordsIn == 12)
        #expect(totals == ["items": 97.5], "the prices of items 1...12 (1.25 each): \(totals)")
    }

    @Test func watchARunAsItGoes() async throws {
        let server = try TestServer()
        let (pipeline, live) = try Self.liveRun(on: server)
        var options = live
        // As in the article.
        let watch = RunWatch()
        options.watch = watch
        let watched = try await Runner(pipeline: pipeline, options: options).run()
        var pages: [String] = []
        for page in watch.snapshot().pages {
            pages.append("\(page.manager) \(page.page) \(page.status) \(page.records) \(page.next ?? page.stopReason ?? "")")
        }
        var stages: [String] = []
        for stage in watch.snapshot().outputs[0].stages {
            stages.append("\(stage.name) \(stage.recordsIn) \(stage.recordsOut) \(stage.rejected)")
        }
        #expect(watched.recordsIn == 12)
        #expect(pages.count == 4)
        #expect(pages.first == "items 1 200 5 \(server.url)/paged/offset?limit=5&total=12&offset=5", "\(pages)")
        #expect(pages.last == "items 4 200 0 empty page", "\(pages)")
        #expect(stages.isEmpty, "the run has no reformer: \(stages)")
    }

    @Test func driveOneAPIWithADelegate() async throws {
        let server = try TestServer()
        let url = server.url
        let pipeline = try server.pipeline(Self.yaml.replacingOccurrences(of: "max_pages: 2", with: "max_pages: 10"))
        // As in the article.
        guard let plan = pipeline.managers.first(where: { $0.ref.name == "items" }),
            let service = pipeline.services.first(where: { $0.name == plan.service })
        else {
            Issue.record("the pipeline has no manager 'items' or no service for it")
            return
        }
        let client = try ServiceClient(service: service, environment: ["TEST_URL": url])
        let items = APIManager(plan: plan, client: client)
        let collector = Collector()
        items.delegate = collector
        var landing: Landing? = try await items.load()
        var last = landing
        while landing != nil {
            landing = try await items.loadNextPage()
            if landing != nil { last = landing }
        }
        #expect(collector.records.count == 12)
        #expect(last?.stopReason == StopReason(.emptyPage))
    }
}

private final class Collector: ManagerDelegate, @unchecked Sendable {
    var records: [Value] = []
    func manager(_ manager: APIManager, didLand landing: Landing) { records += landing.records }
    func manager(_ manager: APIManager, didFail error: ManagerError) { Issue.record("\(error)") }
}
