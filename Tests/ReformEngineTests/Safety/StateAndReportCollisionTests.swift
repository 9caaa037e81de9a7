import Foundation
import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// The state file and the files the caller writes after a run (`--stats-file`) are covered by the
/// same-file check as outputs and the dead-letter file: refused before anything is written
/// (reliability audit M6).
@Suite(.timeLimit(.minutes(10))) struct StateAndReportCollisionTests {
    static let incremental = """
        reform: 1
        name: inc
        services:
          gh: { base_url: "http://gh.test" }
        managers:
          a:
            service: gh
            path: /a
            incremental: { cursor: t, param: since, format: number, key: id }
        runs:
          default: { output: { format: ndjson, path: out/a.ndjson } }
        """

    /// The error of an incremental run with `configure`d options, which must write nothing.
    func refusal(_ configure: (inout RunOptions, RunHarness) throws -> Void) async throws -> (message: String, harness: RunHarness) {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.incremental)
        try harness.write("out/a.ndjson", #"{"id":0,"t":0}"# + "\n")
        let transport = ScriptedTransport()
        transport.on("/a", .json(#"[{"id": 1, "t": 1}]"#))
        var options = RunOptions()
        options.fullRefresh = true
        try configure(&options, harness)
        do {
            _ = try await harness.run("p.yaml", options: options, transport: transport)
            return ("", harness)
        } catch {
            #expect(error.code == .pathCollision)
            #expect(transport.requestKeys.isEmpty, "refused before any request")
            return (error.message.replacing(harness.folder, with: "<dir>"), harness)
        }
    }

    @Test func theStateFileCannotBeThePipelineEvenOnAFullRefresh() async throws {
        let (message, harness) = try await refusal { options, harness in options.statePath = harness.path("p.yaml") }
        #expect(
            message
                == "<dir>/p.yaml: the state file is the pipeline file, which writing it would replace; write to another path "
                + "(nothing was written)")
        #expect(try harness.read("p.yaml") == Self.incremental)
    }

    @Test func theStateFileCannotBeAnOutputOrTheDeadLetterFile() async throws {
        let (output, harness) = try await refusal { options, harness in options.statePath = harness.path("out/a.ndjson") }
        #expect(
            output
                == "<dir>/out/a.ndjson: the state file and output 1 of run 'default' are the same file, so one would replace the other; "
                + "give each its own path (nothing was written)")
        #expect(try harness.read("out/a.ndjson") == #"{"id":0,"t":0}"# + "\n")
        let (dead, _) = try await refusal { options, harness in
            options.statePath = harness.path("dead.ndjson")
            options.deadLetterPath = harness.path("dead.ndjson")
        }
        #expect(dead.contains("the state file and the dead-letter file are the same file"), "\(dead)")
    }

    @Test(arguments: ["p.yaml", "out/a.ndjson", "reform-dead-letter.ndjson", "out/.inc.reform-state.json", "hard-link"])
    func aFileWrittenAfterTheRunCannotBeOneTheRunUses(name: String) async throws {
        let (message, harness) = try await refusal { options, harness in
            var target = harness.path(name)
            if name == "hard-link" {
                target = harness.path("out/hard.ndjson")
                #expect(link(harness.path("out/a.ndjson"), target) == 0)
            }
            options.alsoWrites = [(target, "--stats-file")]
        }
        #expect(message.contains("--stats-file"), "\(message)")
        #expect(message.hasSuffix("(nothing was written)"))
        #expect(try harness.read("out/a.ndjson") == #"{"id":0,"t":0}"# + "\n")
    }

    @Test func aFileWrittenAfterABatchRunCannotBeItsInput() throws {
        let folder = try TemporaryFolder()
        try folder.write("in.ndjson", #"{"id":1}"# + "\n")
        let pipeline = try PipelineLoader(environment: [:]).load(path: try folder.write("p.yaml", "reform: 1\nmanagers: { a: {} }\n"))
        var options = RunOptions()
        options.inputs = [("a", folder.path + "/in.ndjson")]
        options.outputPath = "/dev/null"
        options.alsoWrites = [(folder.path + "/in.ndjson", "--stats-file")]
        #expect {
            try Runner(pipeline: pipeline, options: options).run()
        } throws: { error in
            (error as? RunError)?.message
                == "\(folder.path)/in.ndjson: --stats-file is an input of manager 'a', which writing it would replace; "
                + "write to another path (nothing was written)"
        }
    }
}
