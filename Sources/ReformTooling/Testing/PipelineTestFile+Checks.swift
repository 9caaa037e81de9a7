package import ReformEngine
package import ReformYAML

extension PipelineTestFile {
    /// What `reform validate` finds wrong with this test file beside its own structure, without
    /// running anything: the pipeline it tests is missing, or a test runs a run the pipeline does
    /// not have (unless the test expects that error). `pipeline` is the loaded pipeline, `nil`
    /// when there is no file to load.
    package func problems(with pipeline: Pipeline?) -> [Diagnostic] {
        guard let pipeline else {
            return [
                Diagnostic(
                    file: file, location: pipelineLocation ?? SourceLocation(line: 1, column: 1),
                    message: "the pipeline this file tests, \(pipelineShownName), does not exist; "
                        + "write it, or name the pipeline with 'pipeline: PATH'")
            ]
        }
        let runs = pipeline.runs.map(\.name)
        return cases.compactMap { test in
            guard let run = test.run, test.expect.error == nil, pipeline.run(named: run) == nil else { return nil }
            return Diagnostic(
                file: file, location: test.runLocation ?? test.location,
                message: "test '\(test.name)' runs '\(run)', which \(pipelineShownName) does not have"
                    + Suggestions.hint(for: run, in: runs) + " (runs: \(runs.joined(separator: ", ")))")
        }
    }

    /// The pipeline's path as written beside the test file: its name when they share a folder.
    private var pipelineShownName: String {
        let folder = FilePaths.folder(of: file)
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return pipeline.hasPrefix(prefix) && folder != "." ? String(pipeline.dropFirst(prefix.count)) : pipeline
    }
}
