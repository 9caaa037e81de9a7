import Foundation
import ReformTestSupport
import Testing

/// Rough edges a new user met (issue 42, "a tool people install and live with"), each pinned
/// through the command line.
@Suite("Rough edges, round 4", .timeLimit(.minutes(10)))
struct RoughEdgeRound4Tests {
    /// A fresh folder with `files` written into it.
    func folder(_ files: [String: String]) throws -> String { try RoughEdgeTests().folder(files) }

    static let one = """
        reform: 1
        managers: { a: {} }
        reformers: { pick: { steps: [ { pick: [id] } ] } }
        runs: { default: { reform: [pick], output: { format: ndjson } } }
        """

    /// `validate` said "1 reformers".
    @Test func validateCountsInTheSingularForOne() async throws {
        let result = try await CLIRunner.run(["validate", "-"], stdin: Self.one)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "<stdin>: ok (1 manager, 1 reformer, 1 run)\n")
    }

    /// A `--run`, `--input` or `--param` naming what the pipeline does not have exited 1, as a
    /// failed run; it is a mistake on the command line, as a mistyped option is (64).
    @Test func namingWhatThePipelineLacksIsAUsageError() async throws {
        let dir = try folder(["p.yaml": Self.one, "a.ndjson": #"{"id":1}"# + "\n"])
        for (arguments, message) in [
            (["--run", "defualt"], "no run called 'defualt'"),
            (["--input", "b=" + dir + "/a.ndjson"], "--input names manager 'b'"),
            (["--input", "a=" + dir + "/a.ndjson", "--param", "city=x"], "--param 'city' is not a parameter"),
        ] {
            let result = try await CLIRunner.run(["run", dir + "/p.yaml"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }

    /// An invalid test file made `reform test` print "0 passed, 0 failed" (and exit 2).
    @Test func anInvalidTestFileIsCountedAsSuch() async throws {
        let dir = try folder(["p.yaml": Self.one, "p.test.yaml": "tests:\n  - nme: x\n"])
        let result = try await CLIRunner.run(["test", dir + "/p.yaml"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout == "0 passed, 0 failed, 1 test file invalid (not run)\n")
        #expect(result.stderr.contains("unknown key 'nme' in a test; did you mean 'name'?"), "\(result.stderr)")
    }

    /// `reform run -` said "-:1:1: error: cannot read -: No such file or directory".
    @Test func runningStandardInputSaysWhatToDoInstead() async throws {
        let result = try await CLIRunner.run(["run", "-"], stdin: Self.one)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("reform run needs the pipeline as a file"), "\(result.stderr)")
        #expect(result.stderr.contains("reform validate -"), "\(result.stderr)")
    }

    /// The top-level and `state` help broke their discussion mid-sentence ("… or input;" then
    /// "3 finished …"): the text's own line breaks were kept inside the 80-column wrapping. Each
    /// paragraph now wraps as one: a line of a paragraph ends short only where the paragraph does.
    @Test func helpDiscussionsWrapAsParagraphs() async throws {
        for command in [[], ["run"], ["validate"], ["test"], ["cat"], ["keys"], ["plugins"], ["state"], ["schema"]] {
            let help = try await CLIRunner.run(command + ["--help"])
            #expect(help.status == 0, "\(command)")
            // The text between the overview and USAGE: the overview line(s) and the discussion.
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let text = lines.prefix { !$0.hasPrefix("USAGE:") }
            for (index, line) in text.enumerated().dropLast() {
                let next = text[text.index(text.startIndex, offsetBy: index + 1)]
                guard !line.isEmpty, !next.isEmpty, !next.hasPrefix(" ") else { continue }
                #expect(line.count >= 60, "'reform \(command.joined(separator: " ")) --help' breaks a paragraph early: '\(line)'")
            }
        }
    }
}
