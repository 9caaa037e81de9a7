import Foundation
import ReformTestSupport
import Testing

/// `reform run --explain` prints how the run would execute and runs nothing; with `--stats json`
/// it prints the plan as the JSON object a run's stats carry as `"plan"`.
@Suite(.timeLimit(.minutes(10))) struct ExplainCLITests {
    static func pipeline(writingTo folder: String) -> String {
        """
        reform: 1
        managers: { listings: {} }
        reformers:
          listing:
            keys: { id: id, price: price }
            map: { id: id, price: { path: price, convert: double } }
          by-price:
            steps:
              - sort: { by: price }
        runs:
          default: { reform: [listing, by-price], output: { format: ndjson, path: \(folder)/out/sorted.ndjson } }
        """
    }

    @Test func theExplanationNamesEachTierAndWritesNothing() async throws {
        let folder = Scratch.folder + "/explain-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.pipeline(writingTo: folder).write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        try #"{"id":1,"price":5}"#.appending("\n").write(toFile: folder + "/l.ndjson", atomically: true, encoding: .utf8)
        let arguments = [
            "run", folder + "/p.yaml", "--input", "listings=" + folder + "/l.ndjson", "--jobs", "2", "--dead-letter",
            folder + "/dead.ndjson",
            "--allow-outside-paths", "--explain",
        ]
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                run 'default'
                  output 1: \(folder)/out/sorted.ndjson (ndjson): listing → by-price
                manager 'listings': --input \(folder)/l.ndjson, on 2 workers
                  reads only: id, price
                  output 1: 'listing' compiled, on each line's bytes (workers); then 'by-price' on the written lines, held to the end

                """)
        #expect(!FileManager.default.fileExists(atPath: folder + "/out"), "--explain writes no output")
        #expect(!FileManager.default.fileExists(atPath: folder + "/dead.ndjson"))

        let json = try await CLIRunner.run(arguments + ["--stats", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let managers = try #require(plan["managers"] as? [[String: Any]])
        #expect(managers.first?["jobs"] as? Int == 2)

        let missing = try await CLIRunner.run([
            "run", folder + "/p.yaml", "--input", "listings=" + folder + "/none.ndjson", "--allow-outside-paths", "--explain",
        ])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("none.ndjson"), "\(missing.stderr)")
    }
}
