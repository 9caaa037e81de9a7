import Foundation
import ReformTestSupport
import Testing

/// The JSON locator skips long and non-ASCII strings with an AVX2 kernel where the machine has
/// one; `REFORM_JSON_VECTOR=off` makes it read them byte by byte. A run over records with long,
/// escaped and non-ASCII strings, some of them invalid, must write the same output, dead letters
/// and counts either way, through a compiled chain (one job and two) and the one-mapping fast path.
@Suite("JSON vector kernel", .timeLimit(.minutes(10)))
struct JSONVectorKernelTests {
    static let pipeline = """
        reform: 1
        managers:
          m: {}
        reformers:
          shape:
            keys: { id: id, label: label, city: city }
            map: { id: id, label: { template: "{name} / {body}" }, city: location.city }
          cheap: { steps: [ { filter: "id < 40" } ] }
          plain: { keys: { id: kID, body: kBody }, map: { id: id, body: body } }
        runs:
          chain: { reform: [shape, cheap], output: { format: ndjson } }
          direct: { reform: [plain], output: { format: ndjson } }

        """

    /// Lines whose strings cross the kernel's 32-byte chunks in every way, and lines the kernel
    /// must send back to be read byte by byte: invalid UTF-8, a control character, a bad escape.
    static func lines() -> [String] {
        let texts = [
            "静安寺南京西路近地铁精装修两室一厅采光好随时看房", String(repeating: "plain ASCII words ", count: 9),
            #"escaped \"quotes\" and \\ backslashes \/ \u00e9\uD83D\uDE00 after "# + String(repeating: "é", count: 20),
            "emoji 😀😀😀 and CJK 漢字 mixed with ASCII " + String(repeating: "x", count: 40),
        ]
        var lines: [String] = []
        for id in 0..<48 {
            let body = texts[id % texts.count] + String(repeating: "尾", count: id % 5)
            let name = id % 3 == 0 ? "名字\(id)" : "name \(id) " + String(repeating: "n", count: id)
            lines.append(#"{"id":\#(id),"name":"\#(name)","body":"\#(body)","location":{"city":"上海","note":"\#(body)"}}"#)
        }
        lines[7] = #"{"id":7,"name":"bad \u12G4 escape","body":"ok","location":{"city":"x"}}"#
        lines[13] = #"{"id":13,"name":"tab\#u{09}inside","body":"ok","location":{"city":"x"}}"#
        return lines
    }

    @Test(arguments: [("chain", 1), ("chain", 2), ("direct", 1)])
    func theKernelChangesNothingButSpeed(run: String, jobs: Int) async throws {
        let folder = Scratch.path("reform-vector")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        var data = Data(Self.lines().joined(separator: "\n").utf8)
        data.append(contentsOf: [0x0A])
        // Invalid UTF-8 deep inside a long string, past the kernel's first chunk.
        data.append(
            contentsOf: Array(#"{"id":30,"name":"long name before the bad byte "#.utf8) + [0xE9, 0x41] + Array("\",\"body\":\"b\"}\n".utf8))
        try data.write(to: URL(fileURLWithPath: folder + "/in.ndjson"))
        var outputs: [String] = []
        for setting in ["off", "on"] {
            let out = folder + "/out-\(setting).ndjson"
            let dead = folder + "/dead-\(setting).ndjson"
            let result = try await CLIRunner.run(
                [
                    "run", folder + "/p.yaml", "--run", run, "--input", "m=\(folder)/in.ndjson", "--output", out, "--dead-letter", dead,
                    "--jobs", "\(jobs)", "--max-rejects", "10", "-q", "--stats", "json",
                ], environment: ["REFORM_JSON_VECTOR": setting])
            #expect(result.status == 0, "\(result.stderr)")
            // The summary of rejected records, then the stats.
            let statsLine = try #require(result.stderr.split(separator: "\n").last)
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(statsLine.utf8)) as? [String: Any])
            let written = try String(contentsOfFile: out, encoding: .utf8)
            let rejected = try String(contentsOfFile: dead, encoding: .utf8)
            #expect(rejected.split(separator: "\n").count == 3, "three invalid lines: \(rejected)")
            let counts = ["in", "out", "rejected"].map { "\(stats[$0] ?? "-")" }
            outputs.append("\(written)\n---\n\(rejected)\n---\n\(counts)")
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[1].contains("静安寺") && outputs[1].contains("😀"))
    }
}
