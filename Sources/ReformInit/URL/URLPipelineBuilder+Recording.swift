import ReformEngine
import ReformSDK
import ReformSystem
import ReformTooling
import ReformYAML

/// A pipeline written to a scratch folder and loaded, so that the engine builds its requests.
struct ScratchPipeline {
    let folder: ScratchFolder
    let pipeline: Pipeline

    /// `yaml` loaded from a scratch folder, with `files` (relative path: text) beside it.
    init(yaml: String, files: [String: String] = [:], environment: [String: String]) throws(InitError) {
        do {
            folder = try ScratchFolder(prefix: "reform-init")
        } catch {
            throw InitError(error.description)
        }
        do {
            for (path, text) in files {
                _ = mkdir(FilePaths.folder(of: folder.file(path)), 0o755)  // one level: queries/
                try TextFiles.write(text, to: folder.file(path))
            }
            try TextFiles.write(yaml, to: folder.file("draft.yaml"))
            pipeline = try PipelineLoader(environment: environment, allowOutsidePaths: true).load(path: folder.file("draft.yaml"))
        } catch {
            folder.remove()
            throw InitError("the pipeline reform init drafted does not load (a defect of reform init): \(error)")
        }
    }

    /// A live manager for `name`.
    func manager(name: String, environment: [String: String], resumeAt: (request: HTTPRequest, pagesDone: Int)? = nil) throws(InitError)
        -> APIManager
    {
        guard let plan = pipeline.managers.first(where: { $0.ref.name == name }),
            let service = pipeline.services.first(where: { $0.name == plan.service })
        else { throw InitError("the drafted pipeline has no manager '\(name)' (a defect of reform init)") }
        do {
            let client = try ServiceClient(service: service, environment: environment, transport: LiveTransport())
            return APIManager(plan: plan, client: client, resumeAt: resumeAt)
        } catch {
            throw InitError(error.description)
        }
    }

    func remove() { folder.remove() }
}

extension URLPipelineBuilder {
    /// The pages recorded.
    struct Recorded {
        var pages = 0
        var records: [Value] = []
        /// Whether the API had no more pages.
        var finished = false
        /// How the last page stopped the paging, for the test's `stopped:`.
        var stop = ""
        var notes: [String] = []
        var recorder: Recorder?
    }

    /// Records `first` and the pages after it, up to `options.pages`, as `manager` (the final
    /// draft) pages; a page that repeats the one before says the paging was guessed wrong.
    func record(
        first: Landing, manager draft: PipelineDraft, name: String, format: ResponseFormat, recordsPath: String?,
        files: [String: String] = [:]
    ) async throws(InitError) -> Recorded {
        let scratch = try ScratchPipeline(yaml: draft.yaml(), files: files, environment: options.environment)
        defer { scratch.remove() }
        guard let plan = scratch.pipeline.managers.first else { throw InitError("the drafted pipeline has no manager") }
        var recorded = Recorded()
        let recorder: Recorder
        do {
            recorder = try Recorder(folder: FilePaths.resolve("fixtures/\(name)", against: options.folder), redact: { $0 })
        } catch {
            throw InitError(error.description)
        }
        recorded.recorder = recorder
        // The first page as the final manager reads it (its records path and paging).
        var loader: PageLoader
        do {
            loader = try PageLoader(manager: plan, params: [:])
            guard loader.nextRequest?.matchKey == first.request.matchKey else {
                throw InitError(
                    "the drafted manager would ask '\(loader.nextRequest?.matchKey ?? "nothing")' for the first page, not "
                        + "'\(first.request.matchKey)' (a defect of reform init)")
            }
            recorded.records = try loader.land(first.response)
        } catch let error as InitError {
            recorder.abandon()
            throw error
        } catch {
            recorder.abandon()
            throw InitError("the first page does not read as the drafted manager expects: \(error)")
        }
        do { try recorder.record(first) } catch {
            recorder.abandon()
            throw InitError(error.description)
        }
        recorded.pages = 1
        recorded.finished = loader.finished
        recorded.stop = loader.stopReason?.description ?? ""
        if let next = loader.nextRequest, options.pages > 1 {
            let manager = try scratch.manager(name: name, environment: options.environment, resumeAt: (next, 1))
            var previous = recorded.records
            do {
                var landing: Landing? = try await manager.load()
                while let page = landing {
                    try recorder.record(page)
                    recorded.pages += 1
                    if page.records == previous, !page.records.isEmpty {
                        recorded.notes.append(
                            "page \(recorded.pages) repeated page \(recorded.pages - 1): the paging parameter is not one the API reads; "
                                + "check its name")
                    }
                    previous = page.records
                    recorded.records += page.records
                    recorded.finished = page.isLast
                    recorded.stop = page.stopReason?.description ?? ""
                    landing = page.isLast || recorded.pages >= options.pages ? nil : try await manager.loadNextPage()
                }
            } catch {
                recorded.notes.append("page \(recorded.pages + 1) failed, so only \(recorded.pages) were recorded: \(error)")
            }
        }
        if !recorded.finished { recorded.stop = "max_pages (\(recorded.pages))" }
        return recorded
    }

    /// Puts the fixtures in place and writes the pipeline, its schema, its test and the test's
    /// golden output; then runs the test, which must pass.
    /// `extraFiles` (relative path: text) are written beside the pipeline (a GraphQL query).
    func write(_ pipeline: PipelineDraft, name: String, recorded: Recorded, extraFiles: [String: String], into result: inout URLInitResult)
        throws(InitError)
    {
        let folder = options.folder
        result.pipeline = FilePaths.resolve("\(name).yaml", against: folder)
        result.testFile = FilePaths.resolve("\(name).test.yaml", against: folder)
        result.fixtures = FilePaths.resolve("fixtures/\(name)", against: folder)
        let golden = "tests/\(name)/default.ndjson"
        let test = """
            # yaml-language-server: $schema=pipeline-tests.schema.json
            # The recorded pages give this output: reform test \(name).yaml (--update re-records the golden file).
            tests:
              - name: the recorded pages become records
                expect:
                  output: \(golden)
                  stopped: { \(YAMLWriter().flow(.string(name))): \(YAMLWriter().flow(.string(recorded.stop))) }
                  counts: { in: \(recorded.records.count), out: \(recorded.records.count), rejected: 0 }

            """
        do {
            try recorded.recorder?.commit()
            for (path, text) in extraFiles.sorted(by: { $0.key < $1.key }) {
                let file = FilePaths.resolve(path, against: folder)
                _ = mkdir(FilePaths.folder(of: file), 0o755)  // one level: queries/
                try TextFiles.write(text, to: file)
            }
            try TextFiles.write(pipeline.yaml(schemaLine: "# yaml-language-server: $schema=pipeline.schema.json"), to: result.pipeline)
            try TextFiles.write(test, to: result.testFile)
            try TextFiles.write(
                JSONSchemaDocument.text(PipelineSchema.pipeline, title: "Reform pipeline"),
                to: FilePaths.resolve("pipeline.schema.json", against: folder))
            try TextFiles.write(
                JSONSchemaDocument.text(TestFileSchema.file, title: "Reform pipeline tests"),
                to: FilePaths.resolve("pipeline-tests.schema.json", against: folder))
        } catch {
            throw InitError(error.description)
        }
        // The golden output is the run's; then the test must pass as written.
        try WrittenTests.recordAndCheck(result.testFile, environment: options.environment)
    }
}
