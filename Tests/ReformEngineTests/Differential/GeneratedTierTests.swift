import Foundation
import ReformEngine
import ReformEngineTesting
import ReformTestSupport
import Testing

/// Every execution tier writes what the general path writes, for chains and records nobody
/// picked by hand: ``ChainGenerator`` makes pipelines over every built-in step and mapping rule
/// kind, ``RecordGenerator`` makes records in every JSON form, and ``TierCheck`` runs each on the
/// general path, the fast paths, two workers on tiny batches and a spilling sort, requiring the
/// same output bytes, dead letters, summary and counts.
///
/// The seed is fixed, so a failure reproduces; its message holds the pipeline and the first line
/// that differs. More cases or another seed: `REFORM_GENERATED_BATCHES=250
/// REFORM_GENERATED_SEED=7 swift test --filter GeneratedTierTests` (40 cases a batch).
/// `GEN_DUMP=FOLDER` writes each differing case to `FOLDER/batchB-caseC`, and `GEN_CASE=` that
/// folder re-runs it alone, writing every tier's files beside it.
@Suite("Generated chains run alike on every tier", .timeLimit(.minutes(10)))
struct GeneratedTierTests {
    /// Cases per batch; batches run in parallel.
    static let casesPerBatch = 40
    static let environment = ProcessInfo.processInfo.environment
    /// Batches: 20 (800 cases, about 5,000 runs) unless `REFORM_GENERATED_BATCHES` says.
    static let batches = environment["REFORM_GENERATED_BATCHES"].flatMap { Int($0) } ?? 20
    /// The first batch's seed; batch `b` uses `seed + b`.
    static let seed = environment["REFORM_GENERATED_SEED"].flatMap { UInt64($0) } ?? 0x5EED_0000

    /// What a batch of cases did.
    struct Tally {
        var cases = 0
        var invalid = 0
        var fast = 0
        /// Cases with a table output whose run loaded it.
        var tables = 0
        var failures: [String] = []
    }

    static func runBatch(_ batch: Int) throws -> Tally {
        var random = SeededGenerator(seed: seed &+ UInt64(batch))
        var tally = Tally()
        for index in 0..<casesPerBatch {
            let generated = ChainGenerator().pipeline(using: &random)
            let lines = RecordGenerator().lines(count: Int.random(in: 1...40, using: &random), using: &random)
            tally.cases += 1
            let result: (outcomes: [TierCheck.Outcome], differences: [TierCheck.Difference])
            do { result = try generated.check(lines: lines).outcomes(tiers: generated.tiers) } catch {
                // A pipeline the loader refuses: the generator's slip, counted, not a tier's defect.
                tally.invalid += 1
                continue
            }
            if result.outcomes.contains(where: \.usedFastPath) { tally.fast += 1 }
            if generated.pipeline.contains("sqlite:"), !result.outcomes[0].summary.hasPrefix("error:") { tally.tables += 1 }
            guard let difference = result.differences.first else { continue }
            if let dump = environment["GEN_DUMP"] {
                let folder = dump + "/batch\(batch)-case\(index)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try generated.pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
                try lines.map { $0 + "\n" }.joined().write(toFile: folder + "/a.ndjson", atomically: true, encoding: .utf8)
                try "\(generated.maximumDepth)".write(toFile: folder + "/depth", atomically: true, encoding: .utf8)
            }
            tally.failures.append("batch \(batch) case \(index) (seed \(seed &+ UInt64(batch)))\n\(generated.pipeline)\n\(difference)")
        }
        return tally
    }

    @Test(arguments: 0..<batches)
    func everyTierAgrees(batch: Int) async throws {
        // Off the concurrency pool: a batch is seconds of synchronous runs (see offPool).
        let tally = try await offPool { try Self.runBatch(batch) }
        for failure in tally.failures.prefix(3) { Issue.record(Comment(rawValue: failure)) }
        #expect(tally.failures.isEmpty, "\(tally.failures.count) of \(tally.cases) cases differ")
        // Not vacuous: most cases load, and many take a fast path.
        #expect(tally.invalid * 5 < tally.cases, "the generator makes pipelines the loader refuses too often")
        #expect(tally.tables > 0, "no case loaded a table")
        #expect(tally.fast * 8 > tally.cases, "too few cases took a fast path: \(tally.fast) of \(tally.cases)")
    }

    /// Every built-in step (``BuiltInSteps/all``, the holding ones too) comes up in generated chains with the
    /// argument its own `sample` writes, and runs alike on every tier; one the compiled chain
    /// runs (``RecordStep/compiles``) is in chains it writes directly (at least 5 of the 40; with
    /// the fixed seed from 7 of 95 for `defaults` to 36 of 249 for `pick`). So a new step is covered here
    /// without a case written for it.
    @Test func everyComponentStepIsGeneratedAndAgreesOnEveryTier() async throws {
        let wanted = 40
        let tallies = try await offPool { () throws -> [String: ComponentTally] in
            var random = SeededGenerator(seed: Self.seed ^ 0xC0_C0)
            var tallies: [String: ComponentTally] = [:]
            // Until every component step came up `wanted` times (3,000 pipelines at most).
            for _ in 0..<3_000 where BuiltInSteps.all.contains(where: { (tallies[$0.name]?.cases ?? 0) < wanted }) {
                let generated = ChainGenerator().pipeline(using: &random)
                let named = BuiltInSteps.all.map { $0.name }.filter {
                    generated.pipeline.contains("- \($0):") || generated.pipeline.contains("- \($0)\n")
                }
                guard !named.isEmpty else { continue }
                let lines = RecordGenerator().lines(count: 30, using: &random)
                guard let result = try? generated.check(lines: lines).outcomes(tiers: generated.tiers) else { continue }
                for name in named {
                    tallies[name, default: ComponentTally()].cases += 1
                    if result.outcomes.contains(where: { $0.writtenDirectly > 0 }) { tallies[name, default: ComponentTally()].direct += 1 }
                    if let difference = result.differences.first {
                        tallies[name, default: ComponentTally()].failures.append("\(generated.pipeline)\n\(difference)")
                    }
                }
            }
            return tallies
        }
        for component in BuiltInSteps.all {
            let tally = tallies[component.name] ?? ComponentTally()
            #expect(tally.cases >= wanted, "step '\(component.name)' came up in \(tally.cases) generated chains")
            #expect(tally.failures.isEmpty, "step '\(component.name)': \(tally.failures.prefix(2).joined(separator: "\n\n"))")
            if (component as? any RecordStep.Type)?.compiles == true {
                #expect(tally.direct >= 5, "step '\(component.name)' was written directly in \(tally.direct) of \(tally.cases)")
            }
        }
    }

    /// How the generated chains with one component step fared.
    struct ComponentTally: Sendable {
        var cases = 0
        /// Cases where a tier wrote records straight from the compiled chain.
        var direct = 0
        var failures: [String] = []
    }

    /// Found by the generator: a compiled start hands its records to the general path as the
    /// bytes it writes, where a double that prints as an integer (`1e15`, `100.0`, `-0.0`, an int
    /// converted to double) read back as an int, so a later step's message said "found int"
    /// where the general path says "found double".
    @Test func aDoubleHandedOnFromACompiledStartStaysADouble() throws {
        let pipeline = """
            reform: 1
            managers: { a: {} }
            reformers:
              mapped:
                keys: { id: id, lat: lat, price: price, fixed: fixed }
                map: { id: id, lat: loc.lat, price: { path: price, convert: double }, fixed: { value: 1e2 } }
              spread:
                steps: [ { explode: lat } ]
              fixed:
                steps: [ { explode: fixed } ]
            runs:
              default: { reform: [mapped, spread], output: { format: ndjson } }
              constant: { reform: [mapped, fixed], output: { format: ndjson } }
            """
        let lines = [
            #"{"id":1,"loc":{"lat":1e15},"price":1}"#, #"{"id":2,"loc":{"lat":-0.0},"price":"7"}"#,
            #"{"id":3,"loc":{"lat":100.0},"price":2.5}"#, #"{"id":4,"loc":{"lat":[7]},"price":100}"#,
        ]
        for run in ["default", "constant"] {
            let check = TierCheck(pipeline: pipeline, lines: lines, runName: run)
            let (outcomes, differences) = try check.outcomes()
            #expect(differences.isEmpty, "\(differences)")
            #expect(outcomes[0].deadLetters.contains("found double"))
        }
    }

    /// Found by the generator: the compiled chain kept a number's text for `convert: int` when
    /// it had no decimal point, so `1e+300` and `1e-320` passed as they were where the general
    /// path rejects them (out of range, a fraction), and `9223372036854775808` too.
    @Test func anIntConversionOfAnExponentOrAHugeNumberRejectsOnEveryTier() throws {
        let pipeline = """
            reform: 1
            managers: { a: {} }
            reformers:
              whole:
                steps:
                  - pick: [id, when]
                  - convert: { when: int }
            runs:
              default: { reform: [whole], output: { format: ndjson } }
            """
        let lines = [
            #"{"id":1,"when":1e300}"#, #"{"id":2,"when":1e-320}"#, #"{"id":3,"when":9223372036854775808}"#, #"{"id":4,"when":12}"#,
            #"{"id":5,"when":-9223372036854775808}"#,
        ]
        let (outcomes, differences) = try TierCheck(pipeline: pipeline, lines: lines).outcomes()
        #expect(differences.isEmpty, "\(differences)")
        #expect(
            outcomes[0].output == "== out.ndjson ==\n" + #"{"id":4,"when":12}"# + "\n" + #"{"id":5,"when":-9223372036854775808}"# + "\n")
        #expect(outcomes[1].writtenDirectly == 2, "not vacuous: the compiled chain wrote the others")
    }

    /// Found by the generator: a compiled chain keeps a slot as the writer's text, so a later
    /// step read `1e15` back as the int `1000000000000000` and `-0.0` as `-0`. `convert: string`
    /// wrote `1000000000000000.0` (Swift's text) on the general path and `1000000000000000` on the
    /// compiled one; it now writes the JSON writer's text on both, as templates and cells do. And
    /// `convert: int` kept `-0` (a double's text) as it was, where the general path writes `0`.
    @Test func numbersConvertedToTextOrIntReadAlikeOnEveryTier() throws {
        let pipeline = """
            reform: 1
            managers: { a: {} }
            reformers:
              mapped:
                keys: { id: id, when: when }
                map: { id: id, when: when }
              text:
                steps: [ { convert: { when: string } } ]
              whole:
                steps: [ { convert: { when: int } }, { set: { note: "{when}" } } ]
            runs:
              text: { reform: [mapped, text], output: { format: ndjson } }
              whole: { reform: [mapped, whole], output: { format: ndjson } }
            """
        let lines = [
            #"{"id":1,"when":1e15}"#, #"{"id":2,"when":1.2345678901234568e29}"#, #"{"id":3,"when":-0.0}"#, #"{"id":4,"when":100.0}"#,
            #"{"id":5,"when":1e-7}"#,
        ]
        let text = try TierCheck(pipeline: pipeline, lines: lines, runName: "text").outcomes()
        #expect(text.differences.isEmpty, "\(text.differences)")
        #expect(text.outcomes[0].output.contains(#"{"id":1,"when":"1000000000000000"}"#))
        #expect(text.outcomes[0].output.contains(#"{"id":2,"when":"123456789012345680000000000000"}"#))
        #expect(text.outcomes[0].output.contains(#"{"id":3,"when":"-0"}"#))
        let whole = try TierCheck(pipeline: pipeline, lines: lines, runName: "whole").outcomes()
        #expect(whole.differences.isEmpty, "\(whole.differences)")
        #expect(whole.outcomes[0].output.contains(#"{"id":3,"when":0,"note":"0"}"#))
    }

    /// Found by the generator: an integer past 2^53 converted to double rounds
    /// (`9007199254740993` → `9007199254740992`), but the compiled tier kept every number's text
    /// for a conversion to double, in a step and in a mapping rule alike.
    @Test func integersPastTwoToThe53ConvertedToDoubleRoundOnEveryTier() throws {
        let pipeline = """
            reform: 1
            managers: { a: {} }
            reformers:
              mapped:
                keys: { id: id, n: n }
                map: { id: id, n: { path: n, convert: double } }
              picked:
                steps: [ { pick: [id, n] }, { convert: { n: double } } ]
            runs:
              mapped: { reform: [mapped], output: { format: ndjson } }
              picked: { reform: [picked], output: { format: ndjson } }
            """
        let lines = [
            #"{"id":1,"n":9007199254740993}"#, #"{"id":2,"n":-123456789012345678}"#, #"{"id":3,"n":999999999999999}"#,
            #"{"id":4,"n":2.5}"#,
        ]
        for run in ["mapped", "picked"] {
            let result = try TierCheck(pipeline: pipeline, lines: lines, runName: run).outcomes()
            #expect(result.differences.isEmpty, "\(run): \(result.differences)")
            #expect(result.outcomes[0].output.contains(#"{"id":1,"n":9007199254740992}"#), "\(run)")
            #expect(result.outcomes[0].output.contains(#"{"id":3,"n":999999999999999}"#), "\(run)")
        }
    }

    /// Re-runs a case `GEN_DUMP=FOLDER` wrote (`GEN_CASE=FOLDER/batchB-caseC`), writing each
    /// tier's output and dead letters beside it.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["GEN_CASE"] != nil))
    func dumpedCase() throws {
        let folder = ProcessInfo.processInfo.environment["GEN_CASE"] ?? ""
        let pipeline = try String(contentsOfFile: folder + "/p.yaml", encoding: .utf8)
        let lines = try String(contentsOfFile: folder + "/a.ndjson", encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        ).dropLast().map(String.init)
        let depth = Int(try String(contentsOfFile: folder + "/depth", encoding: .utf8)) ?? 6
        let outputs: TierCheck.Outputs = pipeline.contains("format: csv") ? .file("out.csv") : .file("out.ndjson")
        let check = TierCheck(pipeline: pipeline, lines: lines, outputs: outputs, maximumDepth: depth)
        for tier in TierCheck.Tier.all {
            let outcome = try check.outcome(on: tier)
            let name = tier.name.replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: ",", with: "")
            try outcome.output.write(toFile: folder + "/out-\(name)", atomically: true, encoding: .utf8)
            try outcome.deadLetters.write(toFile: folder + "/dead-\(name)", atomically: true, encoding: .utf8)
            try (outcome.summary + "\n" + outcome.stepCounts.joined(separator: "\n")).write(
                toFile: folder + "/summary-\(name)", atomically: true, encoding: .utf8)
        }
    }
}
