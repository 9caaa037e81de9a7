import Foundation
import ReformTestSupport
import Testing

/// A record too large for the memory a process may have (an address-space limit, `ulimit -v`)
/// fails the run with an error that says so, as any input error does: no abort (exit 134), no
/// staging file left beside the output (reliability audit r2 L18).
@Suite(.timeLimit(.minutes(10))) struct AddressSpaceLimitCLITests {
    @Test func aLineLargerThanTheMemoryAllowedFailsTheRunWithAnErrorNotAnAbort() async throws {
        let folder = Scratch.folder + "/address-space-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pipeline = """
            reform: 1
            managers:
              items: {}
            runs:
              default: { managers: [items], output: { format: ndjson, path: out/items.ndjson } }
            """
        try pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        // A 100 MB line: the read buffer doubles past 64 MiB to hold it, which a 200 MB address
        // space (the process itself takes about 70 MB) cannot give.
        var input = Data(#"{"n":1}"#.utf8 + [10])
        input.append(Data(#"{"s":""#.utf8))
        input.append(Data(repeating: UInt8(ascii: "x"), count: 100_000_000))
        input.append(Data(#""}"#.utf8 + [10] + #"{"n":2}"#.utf8 + [10]))
        try input.write(to: URL(fileURLWithPath: folder + "/big.ndjson"))
        let limited = #"ulimit -v 204800 && exec "$0" "$@""#
        let result = try await CLIRunner.run(
            [
                "-c", limited, CLIRunner.executable, "run", folder + "/p.yaml", "--input", "items=" + folder + "/big.ndjson",
                "--max-record-bytes", "300000000",
            ], executable: "/bin/bash")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("big.ndjson"), "\(result.stderr)")
        #expect(result.stderr.contains("the system refused"), "\(result.stderr)")
        #expect(result.stderr.contains("--max-record-bytes"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/out")) ?? []
        #expect(left.isEmpty, "nothing written, no staging file left: \(left)")
    }
}
