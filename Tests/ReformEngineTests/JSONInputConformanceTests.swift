import Foundation
import ReformEngine
import ReformSDK
import ReformTooling
import Testing

/// JSONTestSuite's `n_` cases (`../shared/conformance/json`) at the entry points that read `.json`
/// files: a `reform run` input (``JSONArrayReader``) and `reform cat` (its converter). Each must be
/// refused with a line and column: a bad element as a bad record, damage to the document (text
/// after it, an empty file, an array that never closes) as an error. The parser alone is checked in
/// `ReformSDKTests/JSONConformanceTests`.
@Suite("JSONTestSuite at the .json entry points", .timeLimit(.minutes(10)))
struct JSONInputConformanceTests {
    static let suite = URL(fileURLWithPath: #filePath + "/../../../../shared/conformance/json").standardizedFileURL.path

    static var rejectCases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: suite)) ?? []).filter { $0.hasPrefix("n_") && $0.hasSuffix(".json") }
            .sorted()
    }

    @Test func everyRejectCaseIsRefusedAsAnInput() throws {
        let names = Self.rejectCases
        try #require(names.count == 188, "JSONTestSuite not found at \(Self.suite)")
        var accepted: [String] = []
        for name in names {
            var reader = try JSONArrayReader(path: Self.suite + "/" + name)
            var refused = false
            do {
                while let record = try reader.next() {
                    if case .failure(let error) = record.payload {
                        #expect(error.line >= 1 && error.column >= 1, "\(name): \(error)")
                        refused = true
                    }
                }
            } catch {
                #expect(error.line.map { $0 >= 1 } == true && error.column.map { $0 >= 1 } == true, "\(name): \(error)")
                refused = true
            }
            if !refused { accepted.append(name) }
        }
        #expect(accepted == [], "accepted as a .json input")
    }

    @Test func everyRejectCaseIsRefusedByCat() throws {
        let names = Self.rejectCases
        try #require(names.count == 188, "JSONTestSuite not found at \(Self.suite)")
        let folder = try TemporaryFolder()
        var accepted: [String] = []
        for name in names {
            let output = try OutputFile.atomic(path: folder.path + "/out.ndjson")
            var converter = DocumentConverter(target: .ndjson, output: output)
            let problems = try converter.convert(path: Self.suite + "/" + name)
            output.abandon()
            if problems.isEmpty {
                accepted.append(name)
            } else {
                #expect(problems[0].hasPrefix(Self.suite + "/" + name + ":"), "\(name): \(problems[0])")
            }
        }
        #expect(accepted == [], "accepted by reform cat")
    }
}
