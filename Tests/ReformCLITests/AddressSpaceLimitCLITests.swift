import Foundation
import ReformTestSupport
import Testing

/// Under an address-space limit (`ulimit -v`) a run fails with an error or stays within it, never
/// aborts (exit 134) (reliability audit r2 L18): a record too large for the memory left fails the
/// run as any input error does, with no staging file left beside the output, and a sort lowers its
/// budget to the room there is and spills the rest.
@Suite(.timeLimit(.minutes(10))) struct AddressSpaceLimitCLITests {
    /// A new folder holding `p.yaml`: one manager, `items`, whose run writes NDJSON on standard
    /// output through `reformers` (`name: [steps]`).
    static func folder(reformers: String = "", reform: String = "") throws -> String {
        let folder = Scratch.folder + "/address-space-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let pipeline = """
            reform: 1
            managers:
              items: {}
            \(reformers)
            runs:
              default: { managers: [items], \(reform)output: { format: ndjson } }
            """
        try pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func aLineLargerThanTheMemoryAllowedFailsTheRunWithAnErrorNotAnAbort() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
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
                "--max-record-bytes", "300000000", "--output", folder + "/out/items.ndjson",
            ], executable: "/bin/bash")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("big.ndjson"), "\(result.stderr)")
        #expect(result.stderr.contains("the system refused"), "\(result.stderr)")
        #expect(result.stderr.contains("--max-record-bytes"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/out")) ?? []
        #expect(left.isEmpty, "nothing written, no staging file left: \(left)")
    }

    @Test func aSortKeepsWithinTheAddressSpaceAllowedAndSpillsTheRest() async throws {
        let folder = try Self.folder(reformers: "reformers: { by: { steps: [{ sort: { by: k } }] } }", reform: "reform: [by], ")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 200,000 records, 30 MB: held whole in memory (the default budget is 64 MiB) they take
        // more than a 110 MB address space leaves beside the process itself (about 70 MB).
        var input = ""
        var seed: UInt64 = 1
        let padding = String(repeating: "x", count: 100)
        for id in 0..<200_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            input += #"{"id":\#(id),"k":\#(seed >> 33),"s":"\#(padding)"}"# + "\n"
        }
        try input.write(toFile: folder + "/in.ndjson", atomically: true, encoding: .utf8)
        let limited = #"ulimit -v 112640 && exec "$0" "$@""#
        let result = try await CLIRunner.run(
            [
                "-c", limited, CLIRunner.executable, "run", folder + "/p.yaml", "--input", "items=" + folder + "/in.ndjson", "--output",
                folder + "/out/items.ndjson",
            ], executable: "/bin/bash")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("200000 in, 200000 out, 0 rejected"), "\(result.stderr)")
        let keys = try String(contentsOfFile: folder + "/out/items.ndjson", encoding: .utf8).split(separator: "\n").map { line in
            Int(line.split(separator: ",")[1].dropFirst(4)) ?? -1
        }
        #expect(keys.count == 200_000)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 }, "sorted by k")
    }
}
