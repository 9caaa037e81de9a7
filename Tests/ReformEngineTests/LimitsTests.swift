import Foundation
import ReformEngine
import ReformSDK
import Testing

/// Input record size and depth, and live response body size, are configurable and fail clearly.
@Suite("Limits", .timeLimit(.minutes(10)))
struct LimitsTests {
    static let yaml = """
        reform: 1
        managers: { a: {} }
        reformers:
          list: { keys: { id: kID }, from: { a: { id: id } } }
        runs:
          default: { reform: [list], output: { format: ndjson } }
        """

    /// The dead-letter file of running `input` (an NDJSON file) with `limits` and `jobs` workers.
    func deadLetters(_ input: String, limits: JSONLimits, jobs: Int = 1, name: String = "a.ndjson") throws -> (Int, String) {
        let folder = try TemporaryFolder()
        _ = try folder.write(name, input)
        let (summary, files) = try BatchRunTests().run(Self.yaml, folder: folder, inputs: [("a", name)]) { options in
            options.recordLimits = limits
            options.jobs = jobs
        }
        return (summary.rejected, files["dead.ndjson"] ?? "")
    }

    @Test(arguments: [1, 2])
    func aLineOverTheRecordSizeIsRejectedNamingTheLimitAndTheFlag(jobs: Int) throws {
        let long = "{\"id\": 2, \"pad\": \"" + String(repeating: "x", count: 100) + "\"}"
        let (rejected, dead) = try deadLetters(
            "{\"id\": 1}\n\(long)\n{\"id\": 3}\n", limits: JSONLimits(maximumDepth: 512, maximumDocumentSize: 64), jobs: jobs)
        #expect(rejected == 1)
        #expect(dead.contains("line is longer than the limit of 64 bytes (raise it with --max-record-bytes)"))
    }

    @Test func aRecordNestedPastTheDepthIsRejected() throws {
        let (rejected, dead) = try deadLetters(
            "{\"id\": 1}\n{\"id\": [[[[1]]]]}\n", limits: JSONLimits(maximumDepth: 3, maximumDocumentSize: 1 << 20))
        #expect(rejected == 1)
        #expect(dead.contains("nesting is deeper than the limit of 3 levels"))
    }

    @Test func aJSONArrayElementOverTheRecordSizeIsRejected() throws {
        let (rejected, dead) = try deadLetters(
            "[{\"id\": 1}, {\"id\": 2, \"pad\": \"" + String(repeating: "x", count: 100) + "\"}]",
            limits: JSONLimits(maximumDepth: 512, maximumDocumentSize: 64), name: "a.json")
        #expect(rejected == 1)
        #expect(dead.contains("record is larger than the limit of 64 bytes (raise it with --max-record-bytes)"))
    }

    @Test func aResponseBodyOverTheLimitFailsNamingTheLimitAndTheFlag() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + """

                managers:
                  items: { service: api, path: /paged/page, records: data.items, params: { total: { type: int, default: 20 } } }
                """)
        let manager = try server.manager("items", in: pipeline, transport: LiveTransport(maxBodyBytes: 100))
        await #expect {
            _ = try await manager.load()
        } throws: { error in
            "\(error)".contains("the body is larger than 100 bytes; nothing of it was landed (raise the limit with --max-body-bytes)")
        }
    }
}
