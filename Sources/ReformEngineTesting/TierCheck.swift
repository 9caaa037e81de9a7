import CZlib
public import ReformEngine
import ReformSDK

/// Runs one pipeline over NDJSON lines on every execution tier the engine has and says where
/// they differ: the general path over values, the compiled chain and compiled rows over line
/// bytes, the held-lines tier (a last `sort`/`dedupe`/`limit` on written lines), each with one
/// worker and with two on tiny batches, and with a sort budget small enough to spill. Every tier
/// must write the same bytes, dead-letter the same records with the same reasons and count the
/// same; a difference is a defect of the faster tier (or of the general one). Each run's
/// execution plan must also say what the run did (``Outcome/planMismatch``).
///
/// For plugin and library authors as much as for the engine's own tests: a reformer plugin's
/// chain, or a pipeline an embedding program generates, can be checked the same way.
///
/// ```swift
/// let differences = try TierCheck(pipeline: yaml, lines: lines).differences()
/// #expect(differences.isEmpty, "\(differences)")
/// ```
public struct TierCheck: Sendable {
    /// One way of running the pipeline.
    public struct Tier: Sendable, CustomStringConvertible {
        /// A short name for reports (`general`, `fast ×2`).
        public var name: String
        /// Whether the fast paths may run (``ReformEngine/RunOptions/directWrites``).
        public var fastPaths: Bool
        /// Workers (``ReformEngine/RunOptions/jobs``).
        public var jobs: Int
        /// Input bytes per worker batch, when not the default.
        public var batchSize: Int?
        /// The sort budget in bytes, when not the default.
        public var sortMemory: Int?
        /// Whether the lines come gzip-compressed (`a.ndjson.gz`), read through zlib.
        public var gzipInput = false

        /// A tier named `name`.
        public init(
            name: String, fastPaths: Bool, jobs: Int = 1, batchSize: Int? = nil, sortMemory: Int? = nil, gzipInput: Bool = false
        ) {
            self.gzipInput = gzipInput
            self.name = name
            self.fastPaths = fastPaths
            self.jobs = jobs
            self.batchSize = batchSize
            self.sortMemory = sortMemory
        }

        /// The tier's name.
        public var description: String { name }

        /// The general path, one worker: the reference the others are held to.
        public static let general = Tier(name: "general", fastPaths: false)
        /// The fast paths, one worker.
        public static let fast = Tier(name: "fast", fastPaths: true)
        /// The fast paths on two workers, batches of 256 bytes (many lines cross a batch edge).
        public static let fastParallel = Tier(name: "fast ×2", fastPaths: true, jobs: 2, batchSize: 256)
        /// The general path on two workers, batches of 256 bytes.
        public static let generalParallel = Tier(name: "general ×2", fastPaths: false, jobs: 2, batchSize: 256)
        /// The fast paths with a 256-byte sort budget: every sort spills and merges.
        public static let fastSpilling = Tier(name: "fast, spilling", fastPaths: true, sortMemory: 256)
        /// The general path with a 256-byte sort budget.
        public static let generalSpilling = Tier(name: "general, spilling", fastPaths: false, sortMemory: 256)

        /// The fast paths on two workers over the lines gzip-compressed.
        public static let fastGzip = Tier(name: "fast ×2, gzip input", fastPaths: true, jobs: 2, batchSize: 256, gzipInput: true)

        /// Every tier, the reference first.
        public static let all: [Tier] = [.general, .fast, .fastParallel, .generalParallel, .fastGzip, .fastSpilling, .generalSpilling]
    }

    /// What one run left: everything a tier must agree on, and how much the fast paths did.
    public struct Outcome: Sendable, Equatable {
        /// Each output file's text, after a `== NAME ==` line.
        public var output: String
        /// The dead-letter file's text (the run folder as `<tmp>`).
        public var deadLetters: String
        /// The run summary's text (the run folder as `<tmp>`), or the error a run stopped with.
        public var summary: String
        /// Per reformer: `name: N in, N out, N rejected`.
        public var stepCounts: [String]
        /// Records the fast paths wrote straight from input bytes (not compared).
        public var writtenDirectly: Int
        /// Reformers that ran on written lines (not compared).
        public var onLines: [String]
        /// The run's execution plan, as `--stats json` reports it (not compared; checked
        /// against what the run did by ``planMismatch``).
        public var plan: ExecutionPlan?

        /// How the run's plan contradicts what the run did, if it does: reformers run on written
        /// lines that the plan does not put there (or the reverse), or records written straight
        /// from input bytes where the plan sends every output's records through the general tier.
        public var planMismatch: String? {
            guard let plan else { return summary.hasPrefix("error: ") ? nil : "the run reported no plan" }
            let planned = plan.managers.flatMap(\.routes).flatMap(\.segments).filter { $0.tier == .lines }.flatMap(\.reformers)
            if Set(planned) != Set(onLines) {
                return "the plan runs \(planned) on written lines, the run ran \(onLines) there"
            }
            let fromLine = plan.managers.flatMap(\.routes).contains { route in
                route.rowsFromLine || !route.segments.contains { $0.tier == .records }
            }
            if writtenDirectly > 0, !fromLine {
                return "the plan writes no output from the line, but the run wrote \(writtenDirectly) records so"
            }
            return nil
        }

        /// Whether two outcomes agree on what a user sees: outputs, dead letters, summary, counts.
        public func agrees(with other: Outcome) -> Bool {
            output == other.output && deadLetters == other.deadLetters && summary == other.summary && stepCounts == other.stepCounts
        }

        /// Whether any fast path took part.
        public var usedFastPath: Bool { writtenDirectly > 0 || !onLines.isEmpty }
    }

    /// A tier whose outcome is not the reference's.
    public struct Difference: Sendable, CustomStringConvertible {
        /// The tier that differs.
        public var tier: Tier
        /// The reference tier's outcome.
        public var expected: Outcome
        /// The differing tier's outcome.
        public var actual: Outcome

        /// The parts that differ, each by its first differing line in both tiers.
        public var description: String {
            var parts: [String] = []
            if let mismatch = actual.planMismatch { parts.append("the plan: \(mismatch)") }
            func part(_ name: String, _ expected: String, _ actual: String) {
                guard expected != actual else { return }
                let left = expected.split(separator: "\n", omittingEmptySubsequences: false)
                let right = actual.split(separator: "\n", omittingEmptySubsequences: false)
                let line = (0..<min(left.count, right.count)).first { left[$0] != right[$0] } ?? min(left.count, right.count)
                func shown(_ lines: [Substring]) -> String {
                    line < lines.count ? String(lines[line].prefix(600)) : "(no line \(line + 1): \(lines.count) lines)"
                }
                parts.append("\(name) differ at line \(line + 1):\n  general: \(shown(left))\n  \(tier.name): \(shown(right))")
            }
            part("outputs", expected.output, actual.output)
            part("dead letters", expected.deadLetters, actual.deadLetters)
            part("summaries", expected.summary, actual.summary)
            part("step counts", expected.stepCounts.joined(separator: "\n"), actual.stepCounts.joined(separator: "\n"))
            return "tier '\(tier.name)': " + parts.joined(separator: "\n")
        }
    }

    /// The pipeline's text; its manager `a` reads the lines.
    public var pipeline: String
    /// The input lines (without line feeds).
    public var lines: [String]
    /// The run to run (`nil`: the pipeline's default).
    public var runName: String?
    /// Where the run writes.
    public enum Outputs: Sendable {
        /// One file named like `--output NAME` (its extension chooses the format where the run
        /// does not), in the run's folder.
        case file(String)
        /// The files the run's outputs declare with `path:` or `sqlite:`, relative to the run's
        /// folder; a `.db` file is compared by its tables' rows.
        case declared([String])
    }

    /// Where the run writes.
    public var outputs: Outputs
    /// The nesting depth limit of input records, when not the default.
    public var maximumDepth: Int?

    /// A check of `pipeline` over `lines`.
    public init(pipeline: String, lines: [String], runName: String? = nil, outputs: Outputs = .file("out.ndjson"), maximumDepth: Int? = nil)
    {
        self.pipeline = pipeline
        self.lines = lines
        self.runName = runName
        self.outputs = outputs
        self.maximumDepth = maximumDepth
    }

    /// The run's outcome on `tier`. A run that stops with an error is an outcome too: its summary
    /// is the error's text.
    public func outcome(on tier: Tier) throws -> Outcome {
        let harness = try RunHarness()
        let text = lines.map { $0 + "\n" }.joined()
        let input = tier.gzipInput ? try Self.writeGzip(text, to: harness.path("a.ndjson.gz")) : try harness.write("a.ndjson", text)
        try harness.write("pipeline.yaml", pipeline)
        var options = RunOptions()
        options.runName = runName
        options.inputs = [("a", input)]
        let files: [String]
        switch outputs {
        case .file(let name):
            options.outputPath = harness.path(name)
            files = [name]
        case .declared(let names):
            options.outputFolder = harness.folder
            files = names
        }
        options.deadLetterPath = harness.path("dead.ndjson")
        options.directWrites = tier.fastPaths
        options.jobs = tier.jobs
        options.collectsStats = true
        if let batchSize = tier.batchSize { options.batchSize = batchSize }
        if let sortMemory = tier.sortMemory { options.sortMemory = sortMemory }
        if let maximumDepth { options.recordLimits.maximumDepth = maximumDepth }
        let pipeline = try harness.load("pipeline.yaml")
        // The input's name as the NDJSON tiers have it, so that dead letters and messages compare.
        func hidingFolder(_ text: String) -> String {
            text.replacing(harness.folder, with: "<tmp>").replacing("a.ndjson.gz", with: "a.ndjson")
        }
        var outcome = Outcome(output: "", deadLetters: "", summary: "", stepCounts: [], writtenDirectly: 0, onLines: [], plan: nil)
        do {
            let summary = try Runner(pipeline: pipeline, options: options).run()
            outcome.summary = hidingFolder(summary.description)
            outcome.writtenDirectly = summary.writtenDirectly
            let steps = summary.stats?.steps ?? []
            outcome.stepCounts = steps.map { "\($0.reformer): \($0.recordsIn) in, \($0.recordsOut) out, \($0.rejected) rejected" }
            outcome.onLines = steps.filter(\.onLines).map(\.reformer)
            outcome.plan = summary.stats?.plan
        } catch {
            outcome.summary = "error: " + hidingFolder(error.description)
        }
        for name in files where harness.exists(name) {
            outcome.output +=
                name.hasSuffix(".db") ? SQLiteDump.text(of: harness.path(name), named: name) : "== \(name) ==\n" + (try harness.read(name))
        }
        if harness.exists("dead.ndjson") { outcome.deadLetters = hidingFolder(try harness.read("dead.ndjson")) }
        return outcome
    }

    /// The tiers of `tiers` (the first is the reference) whose outcome differs from the first's.
    public func differences(tiers: [Tier] = Tier.all) throws -> [Difference] {
        try outcomes(tiers: tiers).differences
    }

    /// Each tier's outcome, and the tiers whose outcome differs from the first's.
    public func outcomes(tiers: [Tier] = Tier.all) throws -> (outcomes: [Outcome], differences: [Difference]) {
        guard let reference = tiers.first else { return ([], []) }
        let expected = try outcome(on: reference)
        var outcomes = [expected]
        var differences: [Difference] = []
        if expected.planMismatch != nil { differences.append(Difference(tier: reference, expected: expected, actual: expected)) }
        for tier in tiers.dropFirst() {
            let actual = try outcome(on: tier)
            outcomes.append(actual)
            if !actual.agrees(with: expected) || actual.planMismatch != nil {
                differences.append(Difference(tier: tier, expected: expected, actual: actual))
            }
        }
        return (outcomes, differences)
    }

    /// Writes `text` gzip-compressed to `path` and returns the path.
    static func writeGzip(_ text: String, to path: String) throws(RunError) -> String {
        guard let file = gzopen(path, "wb") else { throw RunError(.system, "cannot write \(path)") }
        var bytes = Array(text.utf8)
        let written = bytes.isEmpty ? 0 : bytes.withUnsafeMutableBytes { gzwrite(file, $0.baseAddress, UInt32($0.count)) }
        guard gzclose(file) == Z_OK, Int(written) == bytes.count else { throw RunError(.system, "cannot write \(path)") }
        return path
    }
}
