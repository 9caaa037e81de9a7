import Foundation
import ReformEngine
import ReformSDK
import Testing

/// ``Runner`` with live managers, called from Swift concurrency.
@Suite(.timeLimit(.minutes(10))) struct LiveRunnerTests {
    /// `Runner.run()` is synchronous: from an async task it holds a thread of the concurrency
    /// pool (as many threads as cores) while its requests run. More runs at once than the pool has
    /// threads must still finish: the requests cannot wait for a pool thread the runs are holding.
    /// Through either HTTP client.
    @Test(arguments: LiveTransport.Client.allCases)
    func moreConcurrentLiveRunsThanCoresAllFinish(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service()
                + """

                managers:
                  items:
                    service: api
                    path: /paged/offset
                    params: { limit: 5, total: 12 }
                    records: items
                    paging: { policy: offset, param: offset, size_param: limit }
                runs:
                  default: { managers: [items], output: { format: ndjson, path: /dev/null } }
                """)
        var options = RunOptions()
        options.mode = .live
        options.httpClient = client
        options.environment = ["TEST_URL": server.url]
        let runs = ProcessInfo.processInfo.activeProcessorCount + 2
        let landed = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<runs {
                group.addTask { [options] in try await Runner(pipeline: pipeline, options: options).run().landed.first?.count ?? 0 }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(landed == Array(repeating: 12, count: runs))
    }
}
