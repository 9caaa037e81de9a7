import Foundation
import ReformSDK
import ReformTestSupport
import Testing

/// `reform cat --to ndjson` over yaml-test-suite (`../shared/conformance/yaml`), as users run it.
///
/// The peer baseline (libyaml 0.2.5 through PyYAML) is 214 of 279 valid cases equal to `in.json`
/// and 79 of 94 invalid cases rejected; the command must do strictly better on both.
@Suite("reform cat against yaml-test-suite")
struct CatConformanceTests {
    @Test func catLoadsTheSuiteBetterThanThePeer() async throws {
        let suite = URL(fileURLWithPath: CLIRunner.projectRoot + "/../shared/conformance/yaml").standardizedFileURL.path
        let fm = FileManager.default
        let cases = (fm.enumerator(atPath: suite)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix("in.yaml") }.map { ($0 as NSString).deletingLastPathComponent }.sorted()
        try #require(!cases.isEmpty, "yaml-test-suite not found at \(suite)")
        var valid = 0
        var validEqual = 0
        var invalid = 0
        var invalidRejected = 0
        for name in cases {
            let folder = suite + "/" + name
            let result = try await CLIRunner.run(["cat", "--to", "ndjson", folder + "/in.yaml"])
            if fm.fileExists(atPath: folder + "/error") {
                invalid += 1
                if result.status != 0 {
                    invalidRejected += 1
                    #expect(result.stderr.contains("in.yaml:"), "\(name): the error names no file:line:column: \(result.stderr)")
                }
            } else if fm.fileExists(atPath: folder + "/in.json") {
                valid += 1
                let expected = try JSON.parseSequence([UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/in.json"))))
                if result.status == 0, let got = try? JSON.parseSequence(result.stdout), got == expected { validEqual += 1 }
            }
        }
        print(
            "reform cat over yaml-test-suite: \(validEqual) of \(valid) valid cases equal to in.json, \(invalidRejected) of \(invalid) invalid cases rejected (peer: 214 of 279, 79 of 94)"
        )
        #expect(valid == 279 && invalid == 94)
        #expect(validEqual > 214)
        #expect(invalidRejected > 79)
    }
}
