import ReformEngine
import ReformSDK
import ReformYAML

/// Decodes a test file's YAML into a ``PipelineTestFile``, reporting every problem to the context
/// as `file:line:column` diagnostics, the way pipelines are decoded.
struct PipelineTestDecoder {
    static let topKeys = TestFileSchema.file.keyNames
    static let caseKeys = TestFileSchema.testCase.keyNames
    static let expectKeys = TestFileSchema.expectation.keyNames

    let context: DecodingContext
    /// The test file's folder: relative paths in it are resolved against it.
    let folder: String
    /// Whether golden files may lie outside ``folder``.
    var allowOutsidePaths = false

    func decode(_ root: YAMLNode) -> PipelineTestFile? {
        guard let top = context.mapping(root, "the test file", allowed: Self.topKeys) else { return nil }
        var pipeline = PipelineTestFile.defaultPipeline(for: context.file)
        if let node = top["pipeline"], let text = context.string(node, "'pipeline'") {
            pipeline = FilePaths.resolve(text, against: folder)
        }
        guard let testsNode = context.requireKey("tests", in: top, "the test file") else { return nil }
        guard case .sequence(let items) = testsNode.content else {
            context.error("'tests' must be a list of tests, not \(testsNode.kindDescription)", at: testsNode.location)
            return nil
        }
        var cases: [PipelineTestCase] = []
        var names: Set<String> = []
        for item in items {
            guard let test = decodeCase(item) else { continue }
            if !names.insert(test.name).inserted {
                context.error("a second test called '\(test.name)'; test names must be unique in a file", at: test.location)
            }
            cases.append(test)
        }
        var file = PipelineTestFile(file: context.file, pipeline: pipeline, cases: cases)
        file.pipelineLocation = top["pipeline"]?.location
        return file
    }

    private func decodeCase(_ node: YAMLNode) -> PipelineTestCase? {
        guard let m = context.mapping(node, "a test", allowed: Self.caseKeys) else { return nil }
        guard let nameNode = context.requireKey("name", in: m, "a test"), let name = context.string(nameNode, "'name' of a test")
        else { return nil }
        let what = "test '\(name)'"
        let run = m["run"].flatMap { context.string($0, "'run' of \(what)") }
        var params: [String: Value] = [:]
        if let node = m["params"], let pm = context.mapping(node, "'params' of \(what)", allowed: nil) {
            for entry in pm.entries { params[entry.key] = context.value(entry.value, "param '\(entry.key)' of \(what)") }
        }
        var inputs: [(manager: String, path: String)] = []
        if let node = m["inputs"], let im = context.mapping(node, "'inputs' of \(what)", allowed: nil) {
            for entry in im.entries {
                let paths = context.stringList(entry.value, "input files of manager '\(entry.key)' in \(what)") ?? []
                for path in paths { inputs.append((entry.key, FilePaths.resolve(path, against: folder))) }
            }
        }
        let format = m["format"].flatMap { context.choice($0, "'format' of \(what)", as: OutputFormat.self) }
        let live = m["live"].flatMap { context.bool($0, "'live' of \(what)") } ?? false
        var expect = TestExpectation()
        if let node = context.requireKey("expect", in: m, what) {
            expect = decodeExpect(node, what: what)
        }
        var test = PipelineTestCase(
            name: name, location: node.location, run: run, params: params, inputs: inputs, format: format, live: live,
            expect: expect)
        test.runLocation = m["run"]?.location
        if let node = m["skip"], let reason = context.string(node, "'skip' of \(what)") {
            if reason.allSatisfy({ $0 == " " || $0 == "\t" }) {
                context.error(
                    "'skip' of \(what) needs the reason the test is skipped, as in skip: \"the API's v2 is not out yet\"", at: node.location
                )
            }
            test.skip = reason
        }
        return test
    }

    private func decodeExpect(_ node: YAMLNode, what: String) -> TestExpectation {
        var expect = TestExpectation()
        guard let m = context.mapping(node, "'expect' of \(what)", allowed: Self.expectKeys) else { return expect }
        if let node = m["output"] { expect.output = decodeOutput(node, "'output' of \(what)") }
        if let node = m["outputs"], let om = context.mapping(node, "'outputs' of \(what)", allowed: nil) {
            for entry in om.entries {
                if let output = decodeOutput(entry.value, "output '\(entry.key)' of \(what)") {
                    expect.outputs.append((entry.key, output))
                }
            }
        }
        if let node = m["requests"], let rm = context.mapping(node, "'requests' of \(what)", allowed: nil) {
            for entry in rm.entries {
                let list = context.stringList(entry.value, "requests of manager '\(entry.key)' in \(what)") ?? []
                expect.requests.append((entry.key, list))
            }
        }
        if let node = m["stopped"], let sm = context.mapping(node, "'stopped' of \(what)", allowed: nil) {
            for entry in sm.entries {
                if let reason = context.string(entry.value, "why manager '\(entry.key)' stopped in \(what)") {
                    expect.stopped.append((entry.key, reason))
                }
            }
        }
        expect.error = m["error"].flatMap { context.string($0, "'error' of \(what)") }
        if let node = m["dead_letter"] { decodeDeadLetter(node, what: what, into: &expect) }
        if let node = m["counts"], let cm = context.mapping(node, "'counts' of \(what)", allowed: TestFileSchema.counts.keyNames) {
            func count(_ key: String) -> Int? { cm[key].flatMap { context.int($0, "'counts.\(key)' of \(what)", in: 0...Int.max) } }
            expect.counts = (count("in"), count("out"), count("rejected"))
        }
        return expect
    }

    private func decodeOutput(_ node: YAMLNode, _ what: String) -> TestExpectation.Output? {
        if case .scalar = node.content {
            guard let relative = context.string(node, what) else { return nil }
            let golden = FilePaths.resolve(relative, against: folder)
            guard allowOutsidePaths || FilePaths.isInside(golden, folder: folder) else {
                context.error(
                    "golden file '\(relative)' (\(what)) is outside the test file's folder (it resolves to "
                        + "\(FilePaths.canonical(golden))), where 'reform test --update' would write it; move it inside, "
                        + "or pass --allow-outside-paths to allow it",
                    at: node.location)
                return nil
            }
            return .golden(golden)
        }
        guard let m = context.mapping(node, what, allowed: TestFileSchema.records.keyNames),
            let recordsNode = context.requireKey("records", in: m, what)
        else { return nil }
        guard case .array(let records)? = context.value(recordsNode, "'records' of \(what)") else {
            context.error("'records' of \(what) must be a list of records", at: recordsNode.location)
            return nil
        }
        return .records(records)
    }

    private func decodeDeadLetter(_ node: YAMLNode, what: String, into expect: inout TestExpectation) {
        guard let m = context.mapping(node, "'dead_letter' of \(what)", allowed: TestFileSchema.deadLetter.keyNames) else { return }
        expect.deadLetterCount = m["count"].flatMap { context.int($0, "'dead_letter.count' of \(what)", in: 0...Int.max) }
        guard let node = m["records"] else { return }
        guard case .sequence(let items) = node.content else {
            context.error("'dead_letter.records' of \(what) must be a list, not \(node.kindDescription)", at: node.location)
            return
        }
        let fields = TestFileSchema.deadLetterRecord.keyNames
        expect.deadLetterRecords = items.compactMap { item in
            guard let rm = context.mapping(item, "a dead-letter record of \(what)", allowed: fields) else { return nil }
            return rm.entries.compactMap { entry in
                context.string(entry.value, "'\(entry.key)' of a dead-letter record of \(what)").map { (entry.key, $0) }
            }
        }
    }
}
