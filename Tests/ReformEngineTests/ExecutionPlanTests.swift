import ReformEngine
import ReformEngineTesting
import Testing

/// The run's execution plan (`reform run --explain`, `"plan"` in `--stats json`): which tier runs
/// each part of each chain, decided once before landing. What it says must be what the run does
/// (``TierCheck`` checks every generated chain against it); these pin how it reads.
@Suite("The execution plan says which tier runs what, and why nothing faster does", .timeLimit(.minutes(10)))
struct ExecutionPlanTests {
    static let pipeline = """
        reform: 1
        managers:
          a: {}
          b: { path: /b, fixtures: fixtures/b }
        reformers:
          listing:
            keys: { id: id, name: name, price: price }
            map: { id: id, name: name, price: { path: price, convert: double } }
          cheap:
            steps:
              - filter: "price < 100"
          flat:
            steps:
              - flatten: { separator: "_" }
          by-price:
            steps:
              - sort: { by: price }
        runs:
          compiled:
            reform: [listing, cheap]
            output: { format: ndjson }
          sorted:
            reform: [listing, cheap, by-price]
            output: { format: ndjson }
          flattened:
            reform: [listing, flat, cheap]
            output: { format: csv }
          two:
            outputs:
              - { reform: [listing], format: ndjson, path: x.ndjson }
              - { reform: [listing, flat], format: ndjson, path: y.ndjson }
          replayed:
            managers: [b]
            reform: [listing]
            output: { format: ndjson }
        """

    func plan(_ run: String, jobs: Int = 1, limit: Int? = nil) throws -> ExecutionPlan {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        let input = try harness.write("a.ndjson", #"{"id":1,"name":"x","price":5}"# + "\n")
        var options = RunOptions()
        options.runName = run
        options.inputs = run == "replayed" ? [] : [("a", input)]
        options.jobs = jobs
        options.limit = limit
        options.outputFolder = harness.folder
        return try Runner(pipeline: try harness.load("pipeline.yaml"), options: options).explain()
    }

    func tiers(_ plan: ExecutionPlan, output: Int = 0) -> [String] {
        plan.managers[0].routes[output].segments.map { segment in
            segment.reformers.joined(separator: ",") + ":" + segment.tier.rawValue + (segment.onWorkers ? "@workers" : "")
        }
    }

    @Test("a chain the compiled path covers runs on each line's bytes; on workers with --jobs")
    func compiledChain() throws {
        #expect(tiers(try plan("compiled")) == ["listing,cheap:compiled"])
        #expect(tiers(try plan("compiled", jobs: 2)) == ["listing,cheap:compiled@workers"])
        let one = try plan("compiled")
        #expect(one.managers[0].fields == ["id", "name", "price"])
        #expect(one.managers[0].why == nil)
    }

    @Test("a last sort runs on the written lines, after the compiled start")
    func heldLines() throws {
        #expect(tiers(try plan("sorted")) == ["listing,cheap:compiled", "by-price:lines"])
        #expect(tiers(try plan("sorted", jobs: 2)) == ["listing,cheap:compiled@workers", "by-price:lines"])
    }

    @Test("where the compiled path stops, the rest runs on records, and the plan says which step stopped it")
    func stopsAtAStep() throws {
        let plan = try plan("flattened")
        #expect(tiers(plan) == ["listing:compiled", "flat,cheap:records"])
        let why = try #require(plan.managers[0].why)
        #expect(why.contains("step 'flatten' of reformer 'flat'"), "\(why)")
        #expect(why.contains("line 14"), "\(why)")
        #expect(plan.text.contains("why not faster: step 'flatten'"), "\(plan.text)")
    }

    @Test("with --limit every record lands whole, and the plan says why")
    func limited() throws {
        let plan = try plan("compiled", limit: 1)
        #expect(tiers(plan) == ["listing,cheap:records"])
        #expect(plan.managers[0].why == "--limit lands records one by one")
    }

    @Test("several outputs: the covered ones written from the line, the one left starts compiled")
    func fanOut() throws {
        let plan = try plan("two")
        #expect(tiers(plan, output: 0) == ["listing:compiled"])
        #expect(tiers(plan, output: 1) == ["listing:compiled", "flat:records"])
        let two = try self.plan("two", jobs: 2)
        #expect(tiers(two, output: 1) == ["listing:compiled@workers", "flat:records@workers"])
    }

    @Test("records replayed from fixtures are records; --jobs says why it stays one thread only for inputs")
    func replayed() throws {
        let plan = try plan("replayed", jobs: 2)
        #expect(plan.managers[0].source.hasSuffix("fixtures/b"), "\(plan.managers[0].source)")
        #expect(tiers(plan) == ["listing:records"])
        #expect(plan.managers[0].oneThread == nil)
        #expect(plan.managers[0].why == nil)
    }

    @Test("the text names every output and manager and reads as the tiers run")
    func text() throws {
        let text = try plan("sorted").text
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0] == "run 'sorted'")
        #expect(lines[1].hasPrefix("  output 1: -"), "\(text)")
        #expect(lines[1].hasSuffix("(ndjson): listing → cheap → by-price"), "\(text)")
        #expect(lines.contains("  reads only: id, name, price"), "\(text)")
        #expect(
            lines.contains(
                "  output 1: 'listing', 'cheap' compiled, on each line's bytes; then 'by-price' on the written lines, held to the end"),
            "\(text)")
    }

    @Test("--stats json reports the plan the run followed, the one --explain prints")
    func statsCarryThePlan() throws {
        let check = TierCheck(pipeline: Self.pipeline, lines: [#"{"id":1,"name":"x","price":5}"#], runName: "sorted")
        let fast = try check.outcome(on: .fast)
        #expect(fast.planMismatch == nil)
        #expect(try #require(fast.plan).managers[0].routes[0].segments.map(\.tier) == [.compiled, .lines])
        let general = try check.outcome(on: .general)
        #expect(general.planMismatch == nil)
        #expect(try #require(general.plan).managers[0].routes[0].segments.map(\.tier) == [.records])
    }
}
