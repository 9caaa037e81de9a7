import Foundation
import ReformTestSupport
import Testing

/// A malformed byte range on an input is a usage error saying what is wrong (exit 64), not a
/// file that is missing (reliability audit L3); a file whose name holds `@` is still read.
@Suite("Byte range usage", .timeLimit(.minutes(10)))
struct ByteRangeUsageTests {
    static let pipeline = "reform: 1\nmanagers: { items: {} }\n"

    func folder() throws -> String {
        let folder = Scratch.path("ranges")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        for name in ["in.ndjson", "odd@1:2"] {
            try #"{"id":1}"#.appending("\n").write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test(arguments: [
        ("in.ndjson@100:50", "ends (50) before it starts (100)"),
        ("in.ndjson@-5:100", "starts at -5, before the file's first byte (0)"),
        ("in.ndjson@a:b", "has 'a' where a byte offset (a whole number) goes"),
        ("in.ndjson@:100", "needs both START and END, not ':100'"),
        ("in.ndjson@1:2:3", "needs two byte offsets, START:END, after its @, not '1:2:3'"),
        ("in.ndjson@5", "needs two byte offsets, START:END, after its @, not '5'"),
        ("@0:10", "names no file before its @"),
    ])
    func aMalformedRangeIsAUsageErrorSayingWhatIsWrong(range: String, what: String) async throws {
        let folder = try folder()
        for flag in ["--input", "--tagged-input"] {
            let value = flag == "--input" ? "items=" + range : range
            let result = try await ReformProcess.run(["run", "p.yaml", flag, value], in: folder)
            #expect(result.status == 64, "\(flag) \(range): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "Error: \(flag): the byte range '\(range)' \(what); write PATH@START:END with 0 <= START <= END, "
                        + "as in data.ndjson@0:1048576\n"),
                "\(result.stderr)")
        }
    }

    @Test func aFileNamedLikeARangeIsReadAndAnAtInANameIsNoRange() async throws {
        let folder = try folder()
        let odd = try await ReformProcess.run(["run", "p.yaml", "--input", "items=odd@1:2", "-q"], in: folder)
        #expect(odd.status == 0, "\(odd.stderr)")
        #expect(odd.stdout == #"{"id":1}"# + "\n")
        let missing = try await ReformProcess.run(["run", "p.yaml", "--input", "items=user@host.ndjson", "-q"], in: folder)
        #expect(missing.status == 1, "\(missing.stderr)")
        #expect(!missing.stderr.contains("byte range"))
    }
}
