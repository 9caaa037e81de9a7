import ReformEngine
import ReformTooling

/// The test file `reform init` wrote, made true and checked: each test run once recording its
/// golden files, then once more as `reform test` runs it, which must pass.
enum WrittenTests {
    /// Records the goldens of every test in `testFile` and checks that they pass.
    static func recordAndCheck(_ testFile: String, environment: [String: String]) throws(InitError) {
        for update in [true, false] {
            let file: PipelineTestFile
            let loaded: Pipeline
            do {
                file = try PipelineTestLoader(environment: environment).load(path: testFile)
                loaded = try PipelineLoader(environment: environment).load(path: file.pipeline)
            } catch {
                throw InitError("the written pipeline or its tests do not load (a defect of reform init): \(error)")
            }
            guard !file.cases.isEmpty else { throw InitError("the written test file has no test (a defect of reform init)") }
            for test in file.cases {
                let outcome = PipelineTestRunner(update: update, environment: environment).run(test, of: loaded)
                guard outcome.passed else {
                    throw InitError(
                        "the written test '\(test.name)' does not pass (a defect of reform init; the files are left to look at): "
                            + outcome.failures.joined(separator: "; "))
                }
            }
        }
    }
}
