import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// `--env-file` (dotenv) and `${file:PATH}`: secrets kept out of the shell's environment.
@Suite("Variables from a dotenv file and secrets from files", .timeLimit(.minutes(10)))
struct EnvironmentFileTests {
    @Test("the dotenv forms people write: export, comments, quotes, escapes, spaces")
    func parsesTheCommonForms() throws {
        let text = """
            # a comment

            export TOKEN=abc123
            PLAIN = spaced value   # trailing comment
            SINGLE='kept \\n as # written'
            DOUBLE="line\\nbreak \\"quoted\\" # not a comment"
            EMPTY=
            HASH=a#b
            """
        let variables = try EnvironmentFile.parse(text, file: "x.env")
        #expect(variables.map(\.name) == ["TOKEN", "PLAIN", "SINGLE", "DOUBLE", "EMPTY", "HASH"])
        #expect(
            variables.map(\.value) == [
                "abc123", "spaced value", #"kept \n as # written"#, "line\nbreak \"quoted\" # not a comment", "", "a#b",
            ])
    }

    @Test("a line it cannot read is an error at its file and line, never skipped")
    func badLinesAreErrors() {
        for (text, message) in [
            ("A=1\nno equals sign", "x.env:2: expected NAME=value"),
            ("1ABC=x", "x.env:1: '1ABC' is not a variable name"),
            ("A=\"open", "x.env:1: the value's \" is not closed"),
            ("A='x' y", "x.env:1: text after the closing '"),
        ] {
            #expect(throws: EnvironmentFileError.self) { try EnvironmentFile.parse(text, file: "x.env") }
            do { _ = try EnvironmentFile.parse(text, file: "x.env") } catch {
                #expect(error.message.hasPrefix(message), "\(error.message)")
            }
        }
    }

    @Test("the process's environment wins unless asked; a later file wins over an earlier one")
    func merging() throws {
        let harness = try RunHarness()
        let first = try harness.write("a.env", "A=from-a\nB=from-a\n")
        let second = try harness.write("b.env", "B=from-b\nC=from-b\n")
        let merged = try EnvironmentFile.merging([first, second], into: ["A": "process"])
        #expect(merged == ["A": "process", "B": "from-b", "C": "from-b"])
        #expect(try EnvironmentFile.merging([first], into: ["A": "process"], overriding: true)["A"] == "from-a")
        #expect(throws: EnvironmentFileError.self) { try EnvironmentFile.merging([harness.path("none.env")], into: [:]) }
    }

    @Test("${file:PATH} is the file's content without the line break it ends with; a missing file says so")
    func secretFiles() throws {
        let harness = try RunHarness()
        let token = try harness.write("token", "s3cret-token \n")
        try harness.write(
            "pipeline.yaml",
            """
            reform: 1
            managers: { a: { params: { key: { default: "${file:\(token)}" } } } }
            runs: { default: { output: { format: ndjson } } }
            """)
        let pipeline = try harness.load("pipeline.yaml")
        #expect(pipeline.managers[0].params.first?.defaultValue == .string("s3cret-token"))
        try harness.write(
            "missing.yaml",
            """
            reform: 1
            managers: { a: { params: { key: { default: "${file:\(harness.path("none"))}" } } } }
            runs: { default: { output: { format: ndjson } } }
            """)
        let error = try #require(throws: PipelineLoadError.self) { try harness.load("missing.yaml") }
        #expect("\(error)".contains("${file:\(harness.path("none"))}"), "\(error)")
    }
}
