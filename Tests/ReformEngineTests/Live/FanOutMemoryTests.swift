import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// A fan-out's memory does not grow with the partitions it has finished (reliability audit round
/// 2, M10: each finished partition's source, feed and task were kept, about 19 KB apiece, so
/// 100,000 partitions took 1.9 GB).
@Suite(.timeLimit(.minutes(10))) struct FanOutMemoryTests {
    /// The peak resident memory `reform run` reports for a fan-out of `partitions` against `server`.
    static func peak(partitions: Int, server: TestServer, folder: TemporaryFolder) async throws -> Int {
        let pipeline = try folder.write(
            "fan-\(partitions).yaml",
            """
            reform: 1
            services:
              s: { base_url: "${TEST_URL}", connections: 4 }
            managers:
              m:
                service: s
                path: /paged/page
                params: { n: { type: int }, total: { default: 1, type: int }, per_page: { default: 5, type: int } }
                records: data.items
                for_each: { param: n, range: { from: 1, to: \(partitions), step: 1 }, concurrency: 4 }
            runs:
              default: { output: { format: ndjson } }
            """)
        let outcome = try await ReformBinary.run(
            ["run", pipeline, "--live", "-q", "--output", "/dev/null", "--stats", "json"], environment: ["TEST_URL": server.url],
            in: folder.path)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let stats = try JSONSerialization.jsonObject(with: Data(outcome.stderr.utf8)) as? [String: Any]
        return try #require(stats?["peak_rss_bytes"] as? Int)
    }

    @Test func sixThousandMorePartitionsTakeLittleMoreMemory() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let small = try await Self.peak(partitions: 1_000, server: server, folder: folder)
        let large = try await Self.peak(partitions: 7_000, server: server, folder: folder)
        // Kept sources cost about 19 KB a partition: 6,000 more were 110 MB more.
        #expect(large - small < 20 << 20, "\(small) bytes for 1,000 partitions, \(large) for 7,000")
    }
}
