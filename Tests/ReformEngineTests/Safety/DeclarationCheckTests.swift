import Foundation
import ReformEngine
import ReformYAML
import Testing

/// What `validate` accepts, `run` can use: parameter declarations are checked where they are
/// written (reliability audit D21), and a file with thousands of errors is reported in one pass
/// with the rest counted (D4).
@Suite("Declaration checks", .timeLimit(.minutes(10)))
struct DeclarationCheckTests {
    let loader = PipelineLoader(environment: [:])

    func errors(_ yaml: String) throws -> String {
        let folder = try TemporaryFolder()
        let path = try folder.write("p.yaml", yaml)
        do {
            _ = try loader.load(path: path)
            return ""
        } catch {
            return error.description.replacingOccurrences(of: path, with: "p.yaml")
        }
    }

    @Test func parameterDefaultsMustPassTheirOwnChecks() throws {
        let text = try errors(
            """
            reform: 1
            managers:
              m:
                params:
                  big: { type: int, default: 1e35 }
                  nan: { type: int, default: .nan }
                  size: { min: 100, max: 1, default: 3 }
                  status: { enum: [any, paid, refunded], default: 31 }
                  fine: { type: int, min: 1, max: 10, default: 5 }
            """)
        #expect(
            text.contains("p.yaml:5:34: error: 'default' of parameter 'big' of manager 'm' fails its own checks: expected int, got double"),
            "\(text)")
        #expect(
            text.contains("p.yaml:6:34: error: 'default' of parameter 'nan' of manager 'm' fails its own checks: expected int"), "\(text)")
        #expect(
            text.contains("p.yaml:7:20: error: 'min' of parameter 'size' of manager 'm' is 100, above its 'max' 1; no value could pass"),
            "\(text)")
        #expect(
            text.contains(
                "p.yaml:7:42: error: 'default' of parameter 'size' of manager 'm' fails its own checks: 3 is below the minimum 100"),
            "\(text)")
        #expect(
            text.contains(
                "p.yaml:8:55: error: 'default' of parameter 'status' of manager 'm' fails its own checks: 31 is not one of: any, paid, refunded"
            ), "\(text)")
        #expect(!text.contains("'fine'"))
    }

    @Test func manyErrorsAreRenderedOnceEachUpToALimit() throws {
        let text = try errors("reform: 1\n" + (0..<20_000).map { "bad\($0): 1\n" }.joined())
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == Diagnostic.renderLimit * 3 + 1)
        #expect(lines[0] == "p.yaml:1:1: error: the pipeline declares no managers; add a 'managers:' section")
        #expect(lines[3].hasPrefix("p.yaml:2:1: error: unknown key 'bad0'"))
        #expect(lines[4] == "bad0: 1")
        #expect(lines[5] == "^")
        #expect(lines.last == "p.yaml: 19901 more errors not shown; fix these first")
    }

    @Test func durationsAndRatesThatCannotBeWaitedAreValidateErrors() throws {
        let text = try errors(
            """
            reform: 1
            services:
              api:
                base_url: "http://127.0.0.1:9"
                timeout: 0s
                retry: { base: 99999999999999999999h, max: 99999999999999999999h, on: [5xx] }
                interceptors: [ { rate_limit: 0.0000000001 } ]
            managers:
              m: { service: api, path: /x, timeout: 0ms }
              n: { service: api, path: /y, timeout: 720h, retry: { max: 30m } }
            """)
        #expect(text.contains("p.yaml:5:14: error: 'timeout' of service 'api' must be longer than 0 s"), "\(text)")
        #expect(
            text.contains(
                "p.yaml:6:20: error: 'base' in 'retry' of service 'api' is longer than the longest duration accepted, 30 days (720h)"),
            "\(text)")
        #expect(
            text.contains("p.yaml:6:48: error: 'max' in 'retry' of service 'api' is longer than the longest duration accepted"), "\(text)")
        #expect(
            text.contains(
                "p.yaml:7:35: error: 'rate_limit' in 'interceptors' of service 'api' is 1e-10 calls per second, less than one a day"),
            "\(text)")
        #expect(text.contains("p.yaml:9:41: error: 'timeout' of manager 'm' must be longer than 0 s"), "\(text)")
        #expect(!text.contains("manager 'n'"), "\(text)")
    }
}
