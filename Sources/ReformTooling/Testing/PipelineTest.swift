package import ReformEngine
package import ReformSDK
package import ReformYAML

/// A test file (`NAME.test.yaml`): the pipeline it tests and its test cases.
///
/// ```yaml
/// pipeline: property-list.yaml          # default: NAME.yaml beside the test file
/// tests:
///   - name: lists every listing
///     expect:
///       output: tests/property-list/table.txt
///       requests: { zufang: ["GET /zufang/list?city=shanghai&page=1&page_size=3"] }
///       stopped: { zufang: "short page (2 < 3)" }
/// ```
package struct PipelineTestFile: Sendable {
    /// The test file.
    package let file: String
    /// The pipeline file it tests (resolved against the test file's folder).
    package let pipeline: String
    /// Where `pipeline:` names it, when the file does.
    package var pipelineLocation: SourceLocation? = nil
    /// Its test cases, in file order.
    package let cases: [PipelineTestCase]

    /// The pipeline a test file tests when it names none: `orders.test.yaml` tests `orders.yaml`.
    package static func defaultPipeline(for file: String) -> String {
        for suffix in [".test.yaml", ".test.yml"] where file.hasSuffix(suffix) {
            return String(file.dropLast(suffix.count)) + ".yaml"
        }
        return file
    }
}

/// One test of a pipeline: which run, with what, and what must come out.
package struct PipelineTestCase: Sendable {
    /// The test's name, unique in its file.
    package let name: String
    /// Where the test is declared.
    package let location: SourceLocation
    /// The run to execute; `nil` is the pipeline's default run.
    package let run: String?
    /// Where `run:` names it, when the test does.
    package var runLocation: SourceLocation? = nil
    /// Parameters that override the run's.
    package let params: [String: Value]
    /// Input files per manager (resolved against the test file's folder): a batch run.
    package let inputs: [(manager: String, path: String)]
    /// The format of the standard-output output, overriding the pipeline's.
    package let format: OutputFormat?
    /// Whether the test asks for the live APIs (not supported: tests run offline).
    package let live: Bool
    /// What the run must do.
    package let expect: TestExpectation
    /// Why the test is skipped (`skip:`), when it is: it is reported, never run.
    package var skip: String? = nil
}

/// What a test expects of its run; every part given is checked, the rest is not.
package struct TestExpectation: Sendable {
    /// Expected output: a golden file compared byte for byte, or records compared as JSON values.
    package enum Output: Sendable {
        /// A golden file (resolved against the test file's folder), rewritten by `--update`.
        case golden(String)
        /// Records, compared as JSON values with the output read as NDJSON or a JSON array.
        case records([Value])
    }

    /// The standard-output output.
    package var output: Output?
    /// Outputs written to files, by the path the pipeline declares (`out/orders.ndjson`).
    package var outputs: [(declared: String, expected: Output)] = []
    /// The request sequence per manager (`GET /path?query`, query in the order sent).
    package var requests: [(manager: String, requests: [String])] = []
    /// Why each manager stopped paging (`short page (2 < 3)`).
    package var stopped: [(manager: String, reason: String)] = []
    /// A substring of the error the run must fail with.
    package var error: String?
    /// How many records must be rejected to the dead-letter file.
    package var deadLetterCount: Int?
    /// Dead-letter entries in order, each field (`code`, `reason`, `manager`, `stage`, `input`)
    /// given as a substring its value must contain.
    package var deadLetterRecords: [[(field: String, contains: String)]]?
    /// Records in, out (all outputs) and rejected.
    package var counts: (recordsIn: Int?, recordsOut: Int?, rejected: Int?)?
}
