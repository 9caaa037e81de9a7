import ReformEngine
import ReformSDK
import ReformSystem
import ReformTooling
import ReformYAML

/// `reform init --openapi SPEC --record`: each run of the pipeline just written sent live once, its
/// manager's pages (at most `pages`) recorded as its fixtures, and a test per recorded run whose
/// golden output is what the run gave, checked to pass: a pipeline from a document that replays
/// offline and is tested from the start. A run that cannot go live (a required param with no
/// value, a secret not set, the API refusing) is left unrecorded, saying why.
package struct OpenAPIRecording {
    /// The pipeline's path, its name, and the environment `${VARIABLES}` resolve from.
    let pipelinePath: String
    let name: String
    let pages: Int
    let environment: [String: String]

    /// What recording did.
    package struct Outcome: Sendable {
        /// A run recorded: its pages and records, and why its paging stopped.
        package struct Recorded: Sendable {
            package var run: String
            package var pages: Int
            package var records: Int
            package var stop: String
        }

        package var recorded: [Recorded] = []
        /// Runs not recorded, and why.
        package var skipped: [(run: String, reason: String)] = []
        /// The test file written (`nil`: no run was recorded).
        package var testFile: String?
    }

    /// Records every run of `draft` (written at ``pipelinePath``) whose manager has a service;
    /// keeps `max_pages` in the draft for a manager with more pages than were recorded.
    package init(pipelinePath: String, name: String, pages: Int, environment: [String: String]) {
        self.pipelinePath = pipelinePath
        self.name = name
        self.pages = pages
        self.environment = environment
    }

    /// Records, rewrites the pipeline with what recording found, and writes the test file;
    /// `recorded` hears of each run as it is recorded (a large document takes a while).
    package func record(_ draft: inout PipelineDraft, recorded: (Outcome.Recorded) -> Void = { _ in }) async throws(InitError)
        -> Outcome
    {
        var outcome = Outcome()
        let folder = FilePaths.folder(of: pipelinePath)
        // Recorded with every paged manager kept to `pages` pages.
        var capped = draft
        for manager in draft.managerNames { capped.setMaxPages(pages, of: manager, comment: nil) }
        // Loaded from memory, anchored at the pipeline's folder (where its fixtures go): no file
        // beside it that a killed init would leave behind.
        let pipeline: Pipeline
        do {
            pipeline = try PipelineLoader(environment: environment).load(
                bytes: Array(capped.yaml().utf8), file: pipelinePath, folder: folder)
        } catch {
            throw InitError("the pipeline reform init wrote does not load (a defect of reform init): \(error)")
        }
        let scratch: ScratchFolder
        do { scratch = try ScratchFolder(prefix: "reform-init-record") } catch { throw InitError(error.description) }
        defer { scratch.remove() }
        for run in pipeline.runs {
            var options = RunOptions()
            options.runName = run.name
            options.mode = .record
            options.environment = environment
            // The run's outputs go to the scratch folder, not beside the pipeline.
            options.outputFolder = scratch.path
            options.deadLetterPath = scratch.file("\(run.name).dead.ndjson")
            options.statePath = scratch.file("\(run.name).state.json")
            do {
                let summary = try await Runner(pipeline: pipeline, options: options).run()
                let stop = summary.stopped.first?.reason
                let done = Outcome.Recorded(
                    run: run.name, pages: summary.paging.first?.pages ?? 0, records: summary.recordsIn, stop: stop?.description ?? "")
                outcome.recorded.append(done)
                recorded(done)
                if stop?.kind == .maxPages {
                    for manager in run.managers.map(\.name) {
                        draft.setMaxPages(
                            pages, of: manager, comment: "reform init recorded \(pages) pages: remove max_pages to read them all")
                    }
                }
            } catch {
                outcome.skipped.append((run.name, "\(error)"))
            }
        }
        do { try TextFiles.write(draft.yaml(schemaLine: "# yaml-language-server: $schema=pipeline.schema.json"), to: pipelinePath) } catch {
            throw InitError(error.description)
        }
        guard !outcome.recorded.isEmpty else { return outcome }
        outcome.testFile = try writeTests(outcome.recorded, folder: folder)
        return outcome
    }

    /// One test per recorded run, its golden output the run's; then the file must pass.
    private func writeTests(_ recorded: [Outcome.Recorded], folder: String) throws(InitError) -> String {
        let testFile = FilePaths.resolve("\(name).test.yaml", against: folder)
        let writer = YAMLWriter()
        var text = """
            # yaml-language-server: $schema=pipeline-tests.schema.json
            # The recorded pages give these outputs: reform test \(name).yaml (--update re-records the golden files).
            tests:

            """
        for run in recorded {
            text += """
                  - name: \(writer.flow(.string("\(run.run) replays its recorded pages")))
                    run: \(writer.flow(.string(run.run)))
                    expect:
                      outputs:
                        \(writer.flow(.string("out/\(run.run).ndjson"))): \(writer.flow(.string("tests/\(name)/\(run.run).ndjson")))
                      counts: { in: \(run.records), rejected: 0 }

                """
        }
        do {
            try TextFiles.write(text, to: testFile)
            try TextFiles.write(
                JSONSchemaDocument.text(TestFileSchema.file, title: "Reform pipeline tests"),
                to: FilePaths.resolve("pipeline-tests.schema.json", against: folder))
        } catch {
            throw InitError(error.description)
        }
        try WrittenTests.recordAndCheck(testFile, environment: environment)
        return testFile
    }
}

extension PipelineDraft {
    /// The names of the entries under `managers:`.
    var managerNames: [String] {
        guard case .block(let managers)? = entries.first(where: { $0.key == "managers" })?.content else { return [] }
        return managers.map(\.key)
    }

    /// Sets `max_pages` in `manager`'s `paging:` (a manager without paging is left alone).
    mutating func setMaxPages(_ pages: Int, of manager: String, comment: String?) {
        guard let section = entries.firstIndex(where: { $0.key == "managers" }), case .block(var managers) = entries[section].content,
            let index = managers.firstIndex(where: { $0.key == manager }), case .block(var fields) = managers[index].content,
            let paging = fields.firstIndex(where: { $0.key == "paging" }), case .flow(.object(var object)) = fields[paging].content
        else { return }
        object["max_pages"] = .int(pages)
        fields[paging].content = .flow(.object(object))
        if let comment { fields[paging].comment = fields[paging].comment.map { "\($0); \(comment)" } ?? comment }
        managers[index].content = .block(fields)
        entries[section].content = .block(managers)
    }
}
