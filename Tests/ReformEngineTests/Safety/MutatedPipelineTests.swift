import Foundation
import ReformEngine
import ReformTestSupport
import ReformYAML
import Testing

/// Mutants of the shipped pipelines (lines deleted, duplicated, swapped, characters changed,
/// files cut short) either fail to load with every problem located, or run offline to the end or
/// to a clear error; a run that ends reports exactly what it wrote: as many output lines as its
/// out count, as many dead letters as its rejected count. A crash ends the test process.
@Suite("Mutated pipelines", .timeLimit(.minutes(10)))
struct MutatedPipelineTests {
    static let pipelines = ["property-list", "orders", "reminders", "catalog"]
    static let mutantsPerPipeline = 250

    /// A small deterministic generator (SplitMix64), so every run tries the same mutants.
    struct Mutator: RandomNumberGenerator {
        var random: SeededGenerator
        init(state: UInt64) { random = SeededGenerator(seed: state) }
        mutating func next() -> UInt64 { random.next() }

        /// `source` changed in one of six ways.
        mutating func mutate(_ source: String) -> String {
            var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let i = Int.random(in: 0..<lines.count, using: &self)
            let j = Int.random(in: 0..<lines.count, using: &self)
            let noise: [Character] = [":", "{", "}", "[", "]", ",", "\"", "'", "&", "*", "!", "|", ">", "-", " ", "\t", "#", "%", "@", "`"]
            switch Int.random(in: 0..<6, using: &self) {
            case 0: lines.remove(at: i)
            case 1: lines.insert(lines[i], at: j)
            case 2: lines.swapAt(i, j)
            case 3:
                var chars = Array(lines[i])
                if !chars.isEmpty { chars[Int.random(in: 0..<chars.count, using: &self)] = noise.randomElement(using: &self) ?? "x" }
                lines[i] = String(chars)
            case 4:
                var chars = Array(lines[i])
                chars.insert(noise.randomElement(using: &self) ?? "x", at: Int.random(in: 0...chars.count, using: &self))
                lines[i] = String(chars)
            default:
                let text = lines.joined(separator: "\n")
                return String(text.prefix(Int.random(in: 0...text.count, using: &self)))
            }
            return lines.joined(separator: "\n")
        }
    }

    @Test(arguments: pipelines)
    func aMutantFailsWithLocatedErrorsOrRunsAndCountsWhatItWrote(name: String) throws {
        let folder = ProjectRoot.path + "/Pipelines"
        let file = folder + "/\(name).yaml"
        let source = try String(contentsOfFile: file, encoding: .utf8)
        var mutator = Mutator(state: UInt64(name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
        var (located, ran, failedClearly) = (0, 0, 0)
        for _ in 0..<MutatedPipelineTests.mutantsPerPipeline {
            let mutant = mutator.mutate(source)
            let pipeline: Pipeline
            do {
                pipeline = try PipelineLoader(environment: [:]).load(bytes: Array(mutant.utf8), file: file, folder: folder)
            } catch {
                #expect(!error.diagnostics.isEmpty)
                for diagnostic in error.diagnostics {
                    #expect(diagnostic.file == file && diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "\(diagnostic)")
                }
                located += 1
                continue
            }
            let out = try TemporaryFolder()
            var options = RunOptions()
            options.outputFolder = out.path
            options.outputPath = out.path + "/stdout.txt"
            options.format = .ndjson
            options.deadLetterPath = out.path + "/dead.ndjson"
            do {
                let summary = try Runner(pipeline: pipeline, options: options).run()
                ran += 1
                let dead = (try? out.read("dead.ndjson")) ?? ""
                #expect(dead.split(separator: "\n").count == summary.rejected, "\(mutant)")
                // NDJSON outputs hold one line per record written (rendered rows too).
                for (path, count) in summary.written where path.hasSuffix(".ndjson") || path.hasSuffix("stdout.txt") {
                    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                    #expect(text.split(separator: "\n").count == count, "\(path) in:\n\(mutant)")
                }
            } catch {
                #expect(!error.message.isEmpty)
                failedClearly += 1
            }
        }
        print("mutants of \(name).yaml: \(located) refused with located errors, \(ran) ran, \(failedClearly) failed with a message")
        #expect(located + ran + failedClearly == MutatedPipelineTests.mutantsPerPipeline)
        #expect(ran > 0 && located > 0, "the mutants should exercise both sides: \(ran) ran, \(located) refused")
    }
}
