import Foundation
import ReformTestSupport
import Testing

/// `reform run --list-partitions MANAGER` prints a parent → child fan-out's partitions, one JSON
/// object a line, for `--partitions MANAGER=FILE` (the Spark stage gives them to its shards).
@Suite(.timeLimit(.minutes(10))) struct PartitionListingCLITests {
    @Test func theListingPrintsOneObjectALineAndExitsThreeWhenAParentRecordMadeNoPartition() async throws {
        let folder = Scratch.folder + "/partition-listing-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pipeline = """
            reform: 1
            services:
              gh: { base_url: "http://127.0.0.1:9" }
            managers:
              repos: { service: gh, path: /orgs/acme/repos }
              issues:
                service: gh
                path: /repos/{owner}/{repo}/issues
                params: { owner: { required: true }, repo: { required: true } }
                for_each: { manager: repos, params: { owner: owner.login, repo: name } }
            runs:
              default: { managers: [issues], output: { format: ndjson, path: out/issues.ndjson } }
            """
        try pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        let repos =
            #"{"name":"widgets","owner":{"login":"acme"}}"# + "\n" + #"{"id":3}"# + "\n"
            + #"{"name":"gadgets","owner":{"login":"acme"}}"# + "\n"
        try repos.write(toFile: folder + "/repos.ndjson", atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run([
            "run", folder + "/p.yaml", "--list-partitions", "issues", "--input", "repos=" + folder + "/repos.ndjson",
            "--dead-letter", folder + "/dead.ndjson",
        ])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stdout == #"{"owner":"acme","repo":"widgets"}"# + "\n" + #"{"owner":"acme","repo":"gadgets"}"# + "\n")
        #expect(result.stderr.contains("2 partitions of 'issues' from 3 records of repos; 1 rejected"), "\(result.stderr)")
        #expect(try String(contentsOfFile: folder + "/dead.ndjson", encoding: .utf8).contains("has no 'owner.login'"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out"), "a listing writes no output")
    }
}
