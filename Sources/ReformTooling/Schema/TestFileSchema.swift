package import ReformEngine

/// The test-file format (`NAME.test.yaml`), declared once: ``PipelineTestDecoder`` takes its
/// accepted keys from here and `reform schema --tests` renders it.
package enum TestFileSchema {
    /// The top level of a test file.
    package static let file = SchemaObject(
        "Tests of a Reform pipeline: runs against its fixtures, with expected outputs, requests and counts.",
        keys: [
            SchemaKey("pipeline", .string(), "The pipeline tested, relative to this file (default NAME.yaml beside NAME.test.yaml)."),
            SchemaKey("tests", .list(.object(testCase)), "The tests, each a run and what it must give."),
        ],
        required: ["tests"])

    /// One test.
    package static let testCase = SchemaObject(
        "test", "One test: a run of the pipeline and what it must give.",
        keys: [
            SchemaKey("name", .string(), "The test's name, unique in the file."),
            SchemaKey("run", .string(), "The run tested (default 'default')."),
            SchemaKey("params", .named(.any), "Parameter values, as --param gives them."),
            SchemaKey("inputs", .named(.stringOrList), "Per manager: input files read in place of its source, as --input gives them."),
            SchemaKey("format", .choice(of: OutputFormat.self), "The output format, as --format gives it."),
            SchemaKey("live", .bool, "Refused: tests never touch the network (record fixtures with 'reform run --record')."),
            SchemaKey("skip", .string(), "Skip the test, saying why: reported as skipped (JUnit <skipped>), never run."),
            SchemaKey("expect", .object(expectation), "What the run must give."),
        ],
        required: ["name", "expect"])

    /// `expect:` of a test.
    package static let expectation = SchemaObject(
        "expectation", "What a test's run must give.",
        keys: [
            SchemaKey(
                "output", outputExpectation,
                "The standard-output output: a golden file (exact bytes, relative to this file) or { records: [...] } compared as JSON."),
            SchemaKey(
                "outputs", .named(outputExpectation),
                "Outputs with a path, by the path the pipeline declares: a golden file or { records: [...] }."),
            SchemaKey("requests", .named(.stringOrList), "Per manager: the requests sent, in order, like 'GET /list?page=1'."),
            SchemaKey(
                "stopped", .named(.string()),
                "Per manager (or partition): why paging stopped, as the engine says it, like \"no next token\"."),
            SchemaKey("error", .string(), "Text the run's error must contain (the run must fail)."),
            SchemaKey("dead_letter", .object(deadLetter), "The records rejected into the dead-letter file."),
            SchemaKey("counts", .object(counts), "Records in, out and rejected."),
        ])

    /// A golden file or inline records.
    static let outputExpectation = SchemaType.oneOf([.string(), .object(records)])

    /// `{ records: [...] }`.
    package static let records = SchemaObject(
        "The records expected, in order.", keys: [SchemaKey("records", .list(.any), "The records, in order.")], required: ["records"])

    /// `dead_letter:` of an expectation.
    package static let deadLetter = SchemaObject(
        "The records rejected into the dead-letter file.",
        keys: [
            SchemaKey("count", .int(minimum: 0), "How many records were rejected."),
            SchemaKey(
                "records", .list(.object(deadLetterRecord)),
                "The rejected records, in order; each field given must appear in the record's (a substring)."),
        ])

    /// One expected dead-letter record.
    package static let deadLetterRecord = SchemaObject(
        "A rejected record: the fields checked.",
        keys: [
            SchemaKey("manager", .string(), "The manager that landed it."),
            SchemaKey("input", .string(), "The input file it came from."),
            SchemaKey("stage", .string(), "Where it was rejected."),
            SchemaKey("code", .string(), "The error's code."),
            SchemaKey("reason", .string(), "Text the reason must contain."),
            SchemaKey("text", .string(), "The record's text."),
        ])

    /// `counts:` of an expectation.
    package static let counts = SchemaObject(
        "Records in, out and rejected.",
        keys: [
            SchemaKey("in", .int(minimum: 0), "Records landed."),
            SchemaKey("out", .int(minimum: 0), "Records written."),
            SchemaKey("rejected", .int(minimum: 0), "Records rejected."),
        ])
}
