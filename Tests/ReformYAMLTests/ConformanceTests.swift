import Foundation
import ReformSDK
import ReformYAML
import Testing

/// The loader against yaml-test-suite (`../shared/conformance/yaml` next to the project root).
///
/// The peer baseline is libyaml 0.2.5 through PyYAML's CSafeLoader: 214 of 279 valid cases load
/// equal to `in.json` and 79 of 94 error cases are rejected. We must do strictly better on both.
@Suite(.timeLimit(.minutes(10)))
struct ConformanceTests {
    static let suite: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // ReformYAMLTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // project root
        .appendingPathComponent("../shared/conformance/yaml")
        .standardizedFileURL

    /// Every folder below the suite holding an `in.yaml`, as a name such as `ABCD` or `ABCD/01`.
    static func caseNames() throws -> [String] {
        let root = suite.path
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var names: [String] = []
        for case let path as String in enumerator where path.hasSuffix("in.yaml") {
            let folder = (path as NSString).deletingLastPathComponent
            names.append(folder)
        }
        return names.sorted()
    }

    @Test func yamlTestSuite() throws {
        let names = try Self.caseNames()
        try #require(!names.isEmpty, "yaml-test-suite not found at \(Self.suite.path)")
        var valid = 0
        var validPassed = 0
        var errors = 0
        var errorsRejected = 0
        var failedValid: [String] = []
        var acceptedErrors: [String] = []
        let fm = FileManager.default
        for name in names {
            let folder = Self.suite.appendingPathComponent(name)
            let input = try [UInt8](Data(contentsOf: folder.appendingPathComponent("in.yaml")))
            let isError = fm.fileExists(atPath: folder.appendingPathComponent("error").path)
            let jsonURL = folder.appendingPathComponent("in.json")
            if isError {
                errors += 1
                do {
                    for document in try YAMLLoader().load(input, file: name) { _ = try document.toValue(file: name) }
                    acceptedErrors.append(name)
                } catch {
                    errorsRejected += 1
                }
            } else if fm.fileExists(atPath: jsonURL.path) {
                valid += 1
                let expected = try JSON.parseSequence([UInt8](Data(contentsOf: jsonURL)))
                do {
                    let documents = try YAMLLoader().load(input, file: name)
                    var values: [Value] = []
                    for document in documents { values.append(try document.toValue(file: name)) }
                    if values == expected {
                        validPassed += 1
                    } else {
                        failedValid.append("\(name): got \(values), expected \(expected)")
                    }
                } catch {
                    failedValid.append("\(name): \(error)")
                }
            }
        }
        print("yaml-test-suite: \(validPassed) of \(valid) valid cases load equal to in.json (peer 214 of 279)")
        print("yaml-test-suite: \(errorsRejected) of \(errors) error cases rejected (peer 79 of 94)")
        if !failedValid.isEmpty { print("valid cases failing:\n  " + failedValid.joined(separator: "\n  ")) }
        if !acceptedErrors.isEmpty { print("error cases accepted: " + acceptedErrors.joined(separator: " ")) }
        #expect(validPassed > 214)
        #expect(errorsRejected > 79)
    }
}
