import Foundation
import ReformTestSupport
import Testing

/// Limits that hold while reading, not after: a pipeline file is refused having read no more than
/// its size limit plus one byte (reliability audit r2 M12: `validate /dev/zero` grew ~1 GB a
/// second).
@Suite(.timeLimit(.minutes(10))) struct BoundedReadCLITests {
    static let refusal = "error: the input is more than 4194304 bytes (YAMLLimits.maxInputBytes; raise it with reform --yaml-max-bytes)"

    @Test func anEndlessPipelineFileIsRefusedAtTheLimit() async throws {
        let result = try await CLIRunner.run(["validate", "/dev/zero"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("/dev/zero:1:1: " + Self.refusal), "\(result.stderr)")
    }

    @Test func anEndlessStandardInputIsRefusedAtTheLimit() async throws {
        let result = try await CLIRunner.run(
            ["-c", "exec \"$0\" validate - < /dev/zero", CLIRunner.executable], executable: "/bin/sh")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("<stdin>:1:1: " + Self.refusal), "\(result.stderr)")
    }

    @Test func aHugeFileIsRefusedWithItsSizeWithoutReadingIt() async throws {
        let path = Scratch.path("huge", suffix: ".yaml")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 8 << 30)  // sparse: 8 GiB that reading would take a minute and more memory
        try handle.close()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await CLIRunner.run(["validate", path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "\(path):1:1: error: the input is 8589934592 bytes, more than the limit of 4194304 (YAMLLimits.maxInputBytes; raise it with reform --yaml-max-bytes)"
            ), "\(result.stderr)")
    }
}
