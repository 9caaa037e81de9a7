import ReformEngine
import ReformEngineTesting
import Testing

/// A run stops when its own ``StopToken`` asks, and only that run: two pipelines in one process
/// (a studio, a scheduler) cancel each other's nothing. Checked where the fast paths write every
/// line from inside the reader (no record reaches the landing loop's own check) and where two
/// workers read byte ranges.
@Suite("A run's own stop token stops it alone", .timeLimit(.minutes(10)))
struct StopTokenTests {
    static let pipeline = """
        reform: 1
        managers: { a: {} }
        reformers:
          listing:
            keys: { id: id, price: price }
            map: { id: id, price: { path: price, convert: double } }
        runs:
          default: { reform: [listing], output: { format: ndjson, path: out.ndjson } }
        """

    /// A harness with the pipeline and `count` input lines, and options that read them.
    func prepared(lines count: Int, jobs: Int = 1) throws -> (RunHarness, Pipeline, RunOptions) {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        let input = try harness.write("a.ndjson", (0..<count).map { #"{"id":\#($0),"price":\#($0 % 997)}"# + "\n" }.joined())
        var options = RunOptions()
        options.inputs = [("a", input)]
        options.outputFolder = harness.folder
        options.deadLetterPath = harness.path("dead.ndjson")
        options.jobs = jobs
        return (harness, try harness.load("pipeline.yaml"), options)
    }

    @Test("a cancelled token stops its run on the fast path, and writes no output", arguments: [1, 2])
    func cancelledBeforeItStarts(jobs: Int) throws {
        let (harness, pipeline, base) = try prepared(lines: 2_000, jobs: jobs)
        var options = base
        let stop = StopToken()
        stop.cancel()
        options.stop = stop
        let error = try #require(throws: RunError.self) { try Runner(pipeline: pipeline, options: options).run() }
        #expect(error.code == .interrupted, "\(error)")
        #expect(error.description.contains("cancelled"), "\(error)")
        #expect(!harness.exists("out.ndjson"))
        #expect(!StopToken.process.isRequested, "one run's token leaves the process's alone")

        // The same pipeline with a token of its own that nobody trips runs to the end.
        options.stop = StopToken()
        let summary = try Runner(pipeline: pipeline, options: options).run()
        #expect(summary.recordsIn == 2_000)
        #expect(try harness.read("out.ndjson").split(separator: "\n").count == 2_000)
    }

    @Test("a token follows the one it was made from, not the other way round")
    func tokensFollowTheirParent() {
        let parent = StopToken(following: nil)
        let child = StopToken(following: parent)
        child.cancel()
        #expect(child.isRequested && !parent.isRequested)
        let other = StopToken(following: parent)
        parent.request(2)
        #expect(other.signal == 2 && other.reason == "interrupted by signal 2")
        #expect(child.reason == "cancelled", "a token's own request comes first")
    }

    @Test("cancelling the task that awaits a run stops that run, as Ctrl-C would")
    func cancellingTheTask() async throws {
        let (harness, pipeline, options) = try prepared(lines: 200_000)
        let runner = Runner(pipeline: pipeline, options: options)
        let task = Task { try await runner.run() }
        task.cancel()
        let result = await task.result
        guard case .failure(let error as RunError) = result else {
            Issue.record("a cancelled run ended with \(result)")
            return
        }
        #expect(error.code == .interrupted, "\(error)")
        #expect(!harness.exists("out.ndjson"))
        #expect(!StopToken.process.isRequested)
    }
}
