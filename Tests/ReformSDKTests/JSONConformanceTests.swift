import Foundation
import ReformSDK
import Testing

/// Runs JSONTestSuite (nst/JSONTestSuite `test_parsing`) from `shared/conformance/json`, beside the
/// project root: `y_` files must parse, `n_` files must be rejected with a location, and `i_`
/// files may go either way but must not crash or hang.
@Suite(.timeLimit(.minutes(10))) struct JSONConformanceTests {
    static let suiteFolder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // ReformSDKTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // project root
        .appendingPathComponent("../shared/conformance/json")
        .standardizedFileURL

    @Test func jsonTestSuite() throws {
        let folder = Self.suiteFolder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
            Issue.record("conformance suite not found at \(folder.path)")
            return
        }
        var accepted = 0
        var rejected = 0
        var implementationAccepted = 0
        var implementationRejected = 0
        var yCount = 0
        var nCount = 0
        for name in names.sorted() where name.hasSuffix(".json") {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            let result = Result { () throws(JSONError) in try JSON.parse(bytes) }
            switch name.first {
            case "y":
                yCount += 1
                if case .failure(let error) = result {
                    Issue.record("\(name) rejected: \(error)")
                } else {
                    accepted += 1
                }
            case "n":
                nCount += 1
                switch result {
                case .success(let value): Issue.record("\(name) accepted as \(JSON.compactString(value))")
                case .failure(let error):
                    #expect(error.line >= 1 && error.column >= 1, "\(name): \(error)")
                    rejected += 1
                }
            default:
                if case .success = result { implementationAccepted += 1 } else { implementationRejected += 1 }
            }
        }
        print(
            "JSONTestSuite: y accepted \(accepted)/\(yCount), n rejected \(rejected)/\(nCount), i accepted \(implementationAccepted), i rejected \(implementationRejected)"
        )
        #expect(yCount == 95 && accepted == 95)
        #expect(nCount == 188 && rejected == 188)
    }
}
