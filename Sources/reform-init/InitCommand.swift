import ArgumentParser
import ReformEngine
import ReformInit
import ReformSDK
import ReformSystem
import ReformTooling

/// `reform init`: a new pipeline from an OpenAPI document. A program of its own, which `reform init`
/// runs (Package.swift says why).
@main
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reform init",
        abstract: "Write a new pipeline: from an OpenAPI document, from what one URL returns, or an annotated starter.",
        discussion: """
            Without --openapi it writes an annotated starter pipeline (NAME.yaml, default starter.yaml), two \
            recorded pages of its API, its test and the test's golden output: it validates, runs offline and \
            passes 'reform test' as written.

            --openapi SPEC reads an OpenAPI 3.0, 3.1 or 3.2 document (JSON or YAML) and writes NAME.yaml: a service \
            from its servers and security (secrets as ${VARIABLES}), and a manager, a reformer and a run for each \
            GET operation that returns a list (--only TAG, OPERATION_ID or a PATH glob chooses others), with params, \
            records and paging inferred from what each operation declares; what cannot be inferred is said in a \
            comment. Beside it goes pipeline.schema.json, for editors. Files that exist are left alone unless --force. \
            With --record, each run is then sent live once and its pages (up to --pages) recorded as fixtures, and \
            NAME.test.yaml gets a test per recorded run with its golden output, which passes; a run that cannot go \
            live is left out, saying why. The inference rules are in docs/init.md.

            --url URL sends one GET (with --header and --bearer, secrets as ${VARIABLES}) and writes a pipeline \
            around what came back: where the records are, how it pages, a reformer over the fields the records had; \
            it records up to --pages pages as fixtures and writes a test with its golden output, which passes. \
            With --graphql QUERY (the text, or a .graphql file) it POSTs the query to the URL instead, with the \
            --variable values: the records are the connection's nodes (or edges) and the manager pages through its \
            pageInfo with the query's cursor variable ($after); the query goes to queries/NAME.graphql.
            """)

    @Option(
        help: ArgumentHelp("The OpenAPI document: a file, or an http(s) URL.", valueName: "SPEC"),
        completion: .file(extensions: ["json", "yaml", "yml"]))
    var openapi: String?

    @Option(
        help: ArgumentHelp(
            "Take only the GET operations with this tag or operationId, or whose path matches this glob (repeatable).",
            valueName: "PATTERN"))
    var only: [String] = []

    @Option(
        help: ArgumentHelp(
            "The first page of an API: one live GET, whose records and paging the pipeline is built around.", valueName: "URL"))
    var url: String?

    @Option(help: ArgumentHelp("Where the records are in the body, like data.items (default: inferred).", valueName: "PATH"))
    var records: String?

    @Option(
        help: ArgumentHelp(
            "A header sent with the GET and written into the service, 'Name: value'; secrets as ${VARIABLE} (repeatable).",
            valueName: "HEADER"))
    var header: [String] = []

    @Option(help: ArgumentHelp("A bearer token for the service, as ${VARIABLE}: its value is read, never written.", valueName: "TOKEN"))
    var bearer: String?

    @Option(
        help: ArgumentHelp(
            "A GraphQL query POSTed to --url instead of a GET: its text, or a .graphql file.", valueName: "QUERY"),
        completion: .file(extensions: ["graphql", "gql"]))
    var graphql: String?

    @Option(
        help: ArgumentHelp(
            "A value of the --graphql query's variables, NAME=VALUE (a number or true/false as such); written as a param (repeatable).",
            valueName: "NAME=VALUE"))
    var variable: [String] = []

    @Option(help: ArgumentHelp("The most pages recorded as fixtures (default 2).", valueName: "N"))
    var pages: Int?

    @Option(help: ArgumentHelp("The pipeline's name (default: from the document's title).", valueName: "NAME"))
    var name: String?

    @Option(
        help: ArgumentHelp("The folder the pipeline is written to (default: the current folder).", valueName: "DIR"), completion: .directory
    )
    var output = "."

    @Flag(
        help: "With --openapi: send each run live once, record its first pages as fixtures, and write a passing test per recorded run.")
    var record = false

    @Flag(help: "Replace files that exist.")
    var force = false

    func validate() throws {
        if openapi == nil, !only.isEmpty { throw ValidationError("--only chooses operations of an OpenAPI document: give --openapi SPEC") }
        if openapi == nil, record {
            throw ValidationError("--record goes with --openapi SPEC (--url always records the pages it reads)")
        }
        if openapi != nil, url != nil { throw ValidationError("give --openapi SPEC or --url URL, not both") }
        if url == nil, records != nil || !header.isEmpty || bearer != nil || graphql != nil {
            throw ValidationError("--records, --header, --bearer and --graphql go with --url URL")
        }
        if graphql == nil, !variable.isEmpty { throw ValidationError("--variable gives a value of the --graphql query's variables") }
        for pair in variable where !pair.contains("=") || pair.hasPrefix("=") {
            throw ValidationError("--variable '\(pair)' is not NAME=VALUE")
        }
        if let pages, pages < 1 { throw ValidationError("--pages must be 1 or more") }
        if pages != nil, url == nil, !record { throw ValidationError("--pages goes with --url URL or --openapi SPEC --record") }
        if let name, name.isEmpty || name.contains("/") {
            throw ValidationError("--name '\(name)' must be a file name without '/'")
        }
    }

    func run() async throws {
        if let url { return try await writeFromURL(url) }
        guard let openapi else { return try writeStarter() }
        var options = OpenAPIInitOptions(source: openapi, command: "reform init --openapi \(openapi)")
        options.only = only
        options.name = name
        let result: OpenAPIInitResult
        do {
            let document = try await OpenAPIDocumentLoader().load(from: openapi)
            result = try OpenAPIPipelineBuilder(document, options: options).build()
        } catch {
            StandardError.write("reform: \(error.description)")
            throw ExitCode(InitExit.invalid.rawValue)
        }
        let folder = outputFolder
        let pipelinePath = "\(folder)/\(result.name).yaml"
        let schemaPath = "\(folder)/pipeline.schema.json"
        let written = [pipelinePath] + (record ? ["\(folder)/\(result.name).test.yaml", "\(folder)/tests/\(result.name)"] : [])
        try refuseExisting(written)
        do {
            try TextFiles.write(result.draft.yaml(schemaLine: "# yaml-language-server: $schema=pipeline.schema.json"), to: pipelinePath)
            if force || !FilePaths.exists(schemaPath) {
                try TextFiles.write(JSONSchemaDocument.text(PipelineSchema.pipeline, title: "Reform pipeline"), to: schemaPath)
            }
        } catch {
            StandardError.write("reform: \(error)")
            throw ExitCode(InitExit.failed.rawValue)
        }
        report(result, pipelinePath: pipelinePath)
        if record { try await recordRuns(of: result, pipelinePath: pipelinePath) }
    }

    /// `--output` without a trailing `/`.
    private var outputFolder: String { output.hasSuffix("/") ? String(output.dropLast()) : output }

    /// Stops with a usage error when one of `paths` exists and `--force` was not given.
    private func refuseExisting(_ paths: [String]) throws {
        guard !force, let first = paths.first(where: FilePaths.exists) else { return }
        StandardError.write("reform: \(first) exists; reform init leaves it alone (--force replaces it, or choose --name or --output)")
        throw ExitCode(InitExit.usage.rawValue)
    }

    /// `--record`: each run sent live once, its pages recorded, and a test per recorded run.
    private func recordRuns(of result: OpenAPIInitResult, pipelinePath: String) async throws {
        var draft = result.draft
        let outcome: OpenAPIRecording.Outcome
        do {
            outcome = try await OpenAPIRecording(
                pipelinePath: pipelinePath, name: result.name, pages: pages ?? 2, environment: processVariables
            )
            .record(&draft) { run in
                let pagesText = "\(run.pages) page\(run.pages == 1 ? "" : "s")"
                print("recorded \(run.run): \(pagesText), \(run.records) record\(run.records == 1 ? "" : "s") (stopped: \(run.stop))")
            }
        } catch {
            StandardError.write("reform: \(error.description)")
            throw ExitCode(InitExit.failed.rawValue)
        }
        for (run, reason) in outcome.skipped { print("not recorded \(run): \(reason)") }
        if let testFile = outcome.testFile {
            let count = outcome.recorded.count
            print("wrote \(testFile): \(count) test\(count == 1 ? "" : "s"), passing against the recorded pages")
            print("next: reform run \(pipelinePath) --run NAME   (offline), reform test \(pipelinePath)")
        } else {
            print("no run could be recorded, so no test was written")
        }
    }

    /// A pipeline around what one live GET of `url` returned, its recorded pages, its test and
    /// the test's golden output.
    private func writeFromURL(_ url: String) async throws {
        var options = URLInitOptions(url: url)
        options.records = records
        options.headers = header
        options.bearer = bearer
        options.name = name
        options.pages = pages ?? 2
        options.folder = outputFolder
        options.environment = processVariables
        if let graphql {
            if FilePaths.isFile(graphql) {
                guard let text = TextFiles.read(graphql) else {
                    StandardError.write("reform: --graphql \(graphql) cannot be read")
                    throw ExitCode(InitExit.usage.rawValue)
                }
                options.graphql = text
            } else {
                options.graphql = graphql
            }
            options.variables = variable.map { pair in
                let name = String(pair.prefix { $0 != "=" })
                let text = String(pair.dropFirst(name.count + 1))
                let value: Value =
                    Int(text).map(Value.int) ?? Double(text).map(Value.double)
                    ?? (text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text))
                return (name, value)
            }
        }
        let name = URLPipelineBuilder.name(for: options)
        var written = ["\(name).yaml", "\(name).test.yaml", "fixtures/\(name)", "tests/\(name)"].map { "\(options.folder)/\($0)" }
        if options.graphql != nil { written.append("\(options.folder)/queries/\(name).graphql") }
        try refuseExisting(written)
        let result: URLInitResult
        do { result = try await URLPipelineBuilder(options).build() } catch {
            StandardError.write("reform: \(error.description)")
            throw ExitCode(InitExit.failed.rawValue)
        }
        let pagesText = "\(result.pages) page\(result.pages == 1 ? "" : "s")"
        print("wrote \(result.pipeline): records at \(result.recordsPath), paging: \(result.paging), \(result.keyCount) keys")
        print(
            "recorded \(pagesText), \(result.records) record\(result.records == 1 ? "" : "s"), in \(result.fixtures) (stopped: \(result.stop))"
        )
        print("wrote \(result.testFile): it passes against the recorded pages")
        for note in result.notes { print("note: \(note)") }
        print("next: reform run \(result.pipeline)   (offline), reform run \(result.pipeline) --live, reform test \(result.pipeline)")
    }

    /// The annotated starter pipeline, its fixtures, test and golden output: it validates, runs
    /// offline and passes its test as written.
    private func writeStarter() throws {
        let folder = outputFolder
        let files =
            StarterFiles.files(name: name ?? "starter")
            + [
                ("pipeline.schema.json", JSONSchemaDocument.text(PipelineSchema.pipeline, title: "Reform pipeline")),
                ("pipeline-tests.schema.json", JSONSchemaDocument.text(TestFileSchema.file, title: "Reform pipeline tests")),
            ]
        let existing = files.map { "\(folder)/\($0.path)" }.filter(FilePaths.exists)
        if !force, let first = existing.first {
            StandardError.write(
                "reform: \(first) exists\(existing.count > 1 ? " (and \(existing.count - 1) more of the starter's files)" : ""); "
                    + "reform init leaves them alone (--force replaces them, or choose --name or --output)")
            throw ExitCode(InitExit.usage.rawValue)
        }
        do {
            for file in files { try TextFiles.write(file.text, to: "\(folder)/\(file.path)") }
        } catch {
            StandardError.write("reform: \(error)")
            throw ExitCode(InitExit.failed.rawValue)
        }
        let pipeline = "\(folder)/\(files[0].path)"
        print("wrote \(pipeline), its test \(folder)/\(files[1].path), two recorded pages and the test's golden output")
        print("next: reform run \(pipeline)   (offline, from the recorded pages), then reform test \(pipeline)")
    }

    /// What was written, each manager's paging and records, and what was left out and why.
    private func report(_ result: OpenAPIInitResult, pipelinePath: String) {
        let count = result.managers.count
        print("wrote \(pipelinePath): \(count) manager\(count == 1 ? "" : "s")")
        let width = result.managers.map(\.name.count).max() ?? 0
        for manager in result.managers {
            let padded = manager.name.padding(toLength: width)
            print("  \(padded)  \(manager.operation)  paging: \(manager.paging), records: \(manager.records), \(manager.keyCount) keys")
        }
        if !result.skipped.isEmpty {
            print("left out \(result.skipped.count) GET operation\(result.skipped.count == 1 ? "" : "s"):")
            for skipped in result.skipped.prefix(40) { print("  \(skipped.operation): \(skipped.reason)") }
            if result.skipped.count > 40 { print("  … and \(result.skipped.count - 40) more") }
        }
        if result.otherMethods > 0 {
            let one = result.otherMethods == 1
            print("left out \(result.otherMethods) operation\(one ? " that is" : "s that are") not GET (a pipeline reads)")
        }
        let size = FilePaths.regularFileSize(pipelinePath) ?? 0
        guard size > PipelineFileLimit.defaultMaxBytes else {
            print("next: reform validate \(pipelinePath)")
            return
        }
        // Round up to the next megabyte, so the option given is enough.
        let needed = (size / 1_000_000 + 1) * 1_000_000
        print(
            "note: the pipeline is \(size) bytes, more than the \(PipelineFileLimit.defaultMaxBytes) reform reads by default: "
                + "give every command --yaml-max-bytes \(needed), or keep fewer operations with --only")
        print("next: reform validate \(pipelinePath) --yaml-max-bytes \(needed)")
    }
}

extension String {
    /// The string with spaces added to `length` characters.
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}

/// Exit codes, as `reform`'s (Sources/reform/Terminal.swift).
enum InitExit: Int32 {
    case failed = 1
    case invalid = 2
    case usage = 64
}

/// Messages on standard error, control characters escaped as `reform` does.
enum StandardError {
    static func write(_ text: String) {
        let safe = ControlEscapes.escaping(text, keepingLineBreaks: true)
        let line = Array((safe.hasSuffix("\n") ? safe : safe + "\n").utf8)
        _ = line.withUnsafeBytes { ReformSystem.write(2, $0.baseAddress, $0.count) }
    }
}
