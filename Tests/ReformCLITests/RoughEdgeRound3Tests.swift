import Foundation
import ReformTestSupport
import Testing

/// The smaller promises of the second reliability audit (issue "Nothing lost, nothing leaked,
/// round 3", item 24, and L4), each pinned through the command line.
@Suite("Rough edges, round 3", .timeLimit(.minutes(10)))
struct RoughEdgeRound3Tests {
    /// A fresh folder with `files` written into it.
    func folder(_ files: [String: String]) throws -> String { try RoughEdgeTests().folder(files) }

    static let live = """
        reform: 1
        name: live
        services: { api: { base_url: "http://127.0.0.1:9" } }
        managers: { items: { service: api, path: /items, incremental: { cursor: t, param: since, format: number } } }
        runs: { default: { managers: [items], output: { format: ndjson, path: out/items.ndjson } } }
        """

    @Test func stateOfAnUnknownRunIsAUsageErrorNotAnEmptyState() async throws {
        let dir = try folder(["p.yaml": Self.live])
        for command in ["show", "reset"] {
            let result = try await CLIRunner.run(["state", command, dir + "/p.yaml", "--run", "defualt"])
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains("no run called 'defualt' in \(dir)/p.yaml; did you mean 'default'? (runs: default)"),
                "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/.live.defualt.reform-state.json"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/.live.defualt.reform-state.json"))
    }

    @Test func aLiveOnlyPipelineRunWithoutLiveSaysToPassLive() async throws {
        let dir = try folder(["p.yaml": Self.live])
        let result = try await CLIRunner.run(["run", dir + "/p.yaml"])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("nothing to read: it has no 'fixtures:' folder to replay; pass --live to call its API"),
            "\(result.stderr)")
    }

    @Test func aRenamedManagerCanBeForgottenAndADamagedStateReset() async throws {
        let dir = try folder([
            "p.yaml": Self.live,
            "out/.live.reform-state.json": #"{"reform_state": 1, "managers": {"gone": {"": {"bookmark": 3, "edge": []}}}}"#,
        ])
        // (Paths are relative to the working folder, as with 'reform run': the state is named.)
        let state = ["--state", dir + "/out/.live.reform-state.json"]
        let forget = try await CLIRunner.run(["state", "reset", dir + "/p.yaml", "--manager", "gone"] + state)
        #expect(forget.status == 0, "\(forget.stderr) \(forget.stdout)")
        try "not json".write(toFile: dir + "/out/.live.reform-state.json", atomically: true, encoding: .utf8)
        let reset = try await CLIRunner.run(["state", "reset", dir + "/p.yaml"] + state)
        #expect(reset.status == 0, "\(reset.stderr)")
        let show = try await CLIRunner.run(["state", "show", dir + "/p.yaml"] + state)
        #expect(show.status == 0, "\(show.stderr)")
    }
}
