import Foundation
import ReformTestSupport
import Testing

/// `--tagged-stdout`: records, dead letters and stats share standard output as `out`, `dead` and
/// `stats` lines, for engines that pass only standard output back.
@Suite("Tagged standard output", .timeLimit(.minutes(10)))
struct TaggedStdoutTests {
    static let bad = ["--input", "zufang=Pipelines/tests/property-list/zufang-bad.ndjson"]

    func run(_ extra: [String]) async throws -> CLIRunner.Result {
        try await CLIRunner.run(["run", "Pipelines/property-list.yaml", "-q"] + extra)
    }

    /// Each line split at its first tab: the tag and the JSON value after it.
    func tagged(_ stdout: String) throws -> [(tag: String, value: Any)] {
        try stdout.split(separator: "\n").map { line in
            let tab = try #require(line.firstIndex(of: "\t"), "a line without a tag: \(line)")
            let value = try JSONSerialization.jsonObject(with: Data(line[line.index(after: tab)...].utf8))
            return (String(line[..<tab]), value)
        }
    }

    @Test func outLinesThenDeadLinesThenTheStatsLineLast() async throws {
        let result = try await run(Self.bad + ["--tagged-stdout", "--max-rejects", "5"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try tagged(result.stdout)
        #expect(lines.map(\.tag) == ["out", "dead", "dead", "stats"])
        let stats = try #require(lines.last?.value as? [String: Any])
        #expect(stats["in"] as? Int == 3)
        #expect(stats["out"] as? Int == 1)
        #expect(stats["rejected"] as? Int == 2)
        #expect((lines[1].value as? [String: Any])?["manager"] as? String == "zufang")
        // The out lines are the plain run's standard output, line for line.
        let plain = try await run(Self.bad + ["--format", "ndjson", "--max-rejects", "5", "--dead-letter", "/dev/null"])
        #expect(
            result.stdout.split(separator: "\n").filter { $0.hasPrefix("out\t") }.map { $0.dropFirst(4) }
                == plain.stdout.split(separator: "\n").map { $0[...] })
        #expect(
            result.stderr.contains("standard output ('dead' lines)"), "the summary says where the rejected records went: \(result.stderr)")
    }

    @Test func rejectsStillExitThreeWithEveryLineWritten() async throws {
        let result = try await run(Self.bad + ["--tagged-stdout"])
        #expect(result.status == 3)
        #expect(try tagged(result.stdout).map(\.tag) == ["out", "dead", "dead", "stats"])
    }

    @Test func taggedInputsAndOutputsRoundTripRecordsWithTabsAndNewlines() async throws {
        let folder = Scratch.path("tagged")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let input = folder + "/mixed.tsv"
        try """
        zufang\t{"id":1,"name":"tab\\there","title":"new\\nline","imageUrl":"u"}
        xinfang\t{"xinfang_id":2,"xinfang_name":"两","xinfang_title":"t","xinfang_imageUrl":"u"}
        ershoufang\t{"esf_id":3,"esf_name":"c","esf_title":"t","esf_imageUrl":"u"}
        ershofang\t{"esf_id":4}

        """.write(toFile: input, atomically: true, encoding: .utf8)
        let result = try await run(["--tagged-input", input, "--tagged-stdout", "--max-rejects", "1", "--allow-outside-paths"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try tagged(result.stdout)
        #expect(lines.map(\.tag) == ["out", "out", "out", "dead", "stats"])
        #expect((lines[0].value as? [String: Any])?["kPropertyListDataKeyName"] as? String == "tab\there")
        #expect((lines[3].value as? [String: Any])?["code"] as? String == "untagged")
        #expect(((lines[3].value as? [String: Any])?["reason"] as? String)?.contains("did you mean 'ershoufang'?") == true)
    }

    @Test func formatsThatAreNotOneRecordALineAndOtherDestinationsAreRefused() async throws {
        for (extra, message) in [
            (["--format", "csv"], "cannot be tagged"), (["--dead-letter", "d.ndjson"], "leave out --dead-letter"),
            (["--output", "o.ndjson"], "leave out --output"),
        ] {
            let result = try await run(Self.bad + ["--tagged-stdout"] + extra)
            #expect(result.status == 64)
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }
}
