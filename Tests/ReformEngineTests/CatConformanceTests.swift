import Foundation
import ReformEngine
import ReformSDK
import ReformTooling
import Testing

/// `reform cat --to ndjson`'s converter over yaml-test-suite (`../shared/conformance/yaml`), in
/// process: every case through `DocumentConverter`, as the command runs it. (A handful of the same
/// cases go through the binary in `ReformCLITests/CatConformanceTests`.)
///
/// The peer baseline (libyaml 0.2.5 through PyYAML) is 214 of 279 valid cases equal to `in.json`
/// and 79 of 94 invalid cases rejected; the converter must do strictly better on both.
@Suite("reform cat's converter against yaml-test-suite", .timeLimit(.minutes(10)))
struct CatConformanceTests {
    @Test func convertsTheSuiteBetterThanThePeer() throws {
        let suite = URL(fileURLWithPath: #filePath + "/../../../../shared/conformance/yaml").standardizedFileURL.path
        let fm = FileManager.default
        let cases = (fm.enumerator(atPath: suite)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix("in.yaml") }.map { ($0 as NSString).deletingLastPathComponent }.sorted()
        try #require(!cases.isEmpty, "yaml-test-suite not found at \(suite)")
        let folder = try TemporaryFolder()
        var valid = 0
        var validEqual = 0
        var invalid = 0
        var invalidRejected = 0
        for name in cases {
            let input = suite + "/" + name + "/in.yaml"
            let (problems, written) = try Self.convert(input, into: folder.path + "/out.ndjson")
            if fm.fileExists(atPath: suite + "/" + name + "/error") {
                invalid += 1
                if !problems.isEmpty {
                    invalidRejected += 1
                    #expect(problems[0].contains("in.yaml:"), "\(name): the error names no file:line:column: \(problems[0])")
                }
            } else if fm.fileExists(atPath: suite + "/" + name + "/in.json") {
                valid += 1
                let expected = try JSON.parseSequence([UInt8](Data(contentsOf: URL(fileURLWithPath: suite + "/" + name + "/in.json"))))
                if problems.isEmpty, let got = try? JSON.parseSequence(written), got == expected { validEqual += 1 }
            }
        }
        print(
            "reform cat over yaml-test-suite: \(validEqual) of \(valid) valid cases equal to in.json, "
                + "\(invalidRejected) of \(invalid) invalid cases rejected (peer: 214 of 279, 79 of 94)")
        #expect(valid == 279 && invalid == 94)
        #expect(validEqual > 214)
        #expect(invalidRejected > 79)
    }

    /// Converts `input` to NDJSON at `output` as `reform cat --to ndjson` does; returns the
    /// diagnostics and the bytes written.
    static func convert(_ input: String, into output: String) throws -> (problems: [String], written: [UInt8]) {
        let file = try OutputFile.atomic(path: output)
        var converter = DocumentConverter(target: .ndjson, output: file)
        let problems = try converter.convert(path: input)
        try converter.finish()
        try file.commit()
        return (problems, [UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
    }
}
