import Foundation
import ReformTestSupport
import Testing

/// `reform init` alone: the annotated starter validates, runs offline and passes its own test as
/// written, and is never written over unasked.
@Suite(.timeLimit(.minutes(10))) struct InitStarterTests {
    @Test func theStarterValidatesRunsOfflineAndPassesItsTest() async throws {
        let folder = Scratch.path("starter")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let written = try await ReformBinary.run(["init", "--name", "shop"], environment: [:], in: folder)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.hasPrefix("wrote ./shop.yaml, its test ./shop.test.yaml"))
        let validated = try await ReformBinary.run(["validate", "shop.yaml", "shop.test.yaml"], environment: [:], in: folder)
        #expect(validated.status == 0, "\(validated.stderr)")
        #expect(!validated.stderr.contains("warning"), "\(validated.stderr)")
        let run = try await ReformBinary.run(["run", "shop.yaml"], environment: [:], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try String(contentsOfFile: folder + "/tests/shop/default.ndjson", encoding: .utf8)))
        let tested = try await ReformBinary.run(["test", "shop.yaml"], environment: [:], in: folder)
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        #expect(tested.stdout.contains("1 passed, 0 failed"))
        let cheap = try await ReformBinary.run(["run", "shop.yaml", "--run", "cheap", "--quiet"], environment: [:], in: folder)
        #expect(cheap.stdout.split(separator: "\n").count == 4, "a heading, a rule and the two cheap products")

        let again = try await ReformBinary.run(["init", "--name", "shop"], environment: [:], in: folder)
        #expect(again.status == 64)
        #expect(again.stderr.contains("./shop.yaml exists (and 6 more of the starter's files); reform init leaves them alone"))
        #expect(try await ReformBinary.run(["init", "--name", "shop", "--force"], environment: [:], in: folder).status == 0)
    }
}
