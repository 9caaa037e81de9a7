package import ReformEngine

/// `reform test --junit PATH`: the tests' outcome as JUnit XML, the format CI dashboards read
/// (`vector test --junit-report` and `pytest --junitxml` write the same shape).
///
/// One `<testsuite>` per test file (named after the pipeline it tests, `file` the test file), one
/// `<testcase>` per test (`classname` the pipeline, `file` the test file and `line` where its test
/// starts) with its `time` in seconds; a failed test has one `<failure>` whose `message` is its
/// first line and whose text is everything `reform test` printed about it; a skipped one a
/// `<skipped>` with its reason. A test file that does not load is a suite with one `<error>`; a pipeline
/// without tests is a suite with one failed case, `(no tests)`.
package struct JUnitReport: Sendable {
    /// One test case.
    package struct Case: Sendable {
        /// The test's name.
        package var name: String
        /// How long it took, in milliseconds.
        package var milliseconds: Int
        /// What did not match (empty when the test passed).
        package var failures: [String]
        /// Why the test could not run at all, when it could not.
        package var error: String?
        /// Why the test was skipped, when it was.
        package var skipped: String? = nil
        /// The line of the test file its test starts on, when known.
        package var line: Int? = nil
    }

    /// The cases of one test file.
    package struct Suite: Sendable {
        /// The pipeline's name.
        package var name: String
        /// The test file (or the untested pipeline).
        package var file: String
        /// Its cases, in the order run.
        package var cases: [Case] = []
    }

    /// The suites, in the order their files were found.
    package private(set) var suites: [Suite] = []

    /// An empty report.
    package init() {}

    /// Adds the outcome of one test of the test file `file`.
    package mutating func add(_ result: PipelineTestResult, file: String) {
        let test = Case(
            name: result.test, milliseconds: result.milliseconds, failures: result.failures, skipped: result.skipped, line: result.line)
        if let index = suites.firstIndex(where: { $0.file == file }) {
            suites[index].cases.append(test)
        } else {
            suites.append(Suite(name: result.pipeline, file: file, cases: [test]))
        }
    }

    /// Adds a test file that could not be loaded (`reason` as printed, with file, line and column).
    package mutating func addInvalid(file: String, name: String, reason: String) {
        suites.append(Suite(name: name, file: file, cases: [Case(name: "(test file)", milliseconds: 0, failures: [], error: reason)]))
    }

    /// Adds a pipeline that has no test file (`reason` says which file to write).
    package mutating func addUntested(pipeline: String, name: String, reason: String) {
        suites.append(Suite(name: name, file: pipeline, cases: [Case(name: "(no tests)", milliseconds: 0, failures: [reason])]))
    }

    /// The report as an XML document.
    package var xml: String {
        let all = suites.flatMap(\.cases)
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<testsuites name=\"reform test\" tests=\"\(all.count)\""
        text += " failures=\"\(all.count { !$0.failures.isEmpty })\" errors=\"\(all.count { $0.error != nil })\""
        text += " skipped=\"\(all.count { $0.skipped != nil })\""
        text += " time=\"\(Self.seconds(all.reduce(0) { $0 + $1.milliseconds }))\">\n"
        for suite in suites {
            text += "  <testsuite name=\"\(Self.attribute(suite.name))\" tests=\"\(suite.cases.count)\""
            text += " failures=\"\(suite.cases.count { !$0.failures.isEmpty })\" errors=\"\(suite.cases.count { $0.error != nil })\""
            text +=
                " skipped=\"\(suite.cases.count { $0.skipped != nil })\" time=\"\(Self.seconds(suite.cases.reduce(0) { $0 + $1.milliseconds }))\""
            text += " file=\"\(Self.attribute(suite.file))\">\n"
            for test in suite.cases {
                text += "    <testcase name=\"\(Self.attribute(test.name))\" classname=\"\(Self.attribute(suite.name))\""
                text += " time=\"\(Self.seconds(test.milliseconds))\" file=\"\(Self.attribute(suite.file))\""
                if let line = test.line { text += " line=\"\(line)\"" }
                if let error = test.error {
                    text += ">\n      " + Self.element("error", error) + "\n    </testcase>\n"
                } else if !test.failures.isEmpty {
                    text += ">\n      " + Self.element("failure", test.failures.joined(separator: "\n")) + "\n    </testcase>\n"
                } else if let reason = test.skipped {
                    text += ">\n      " + Self.element("skipped", reason) + "\n    </testcase>\n"
                } else {
                    text += "/>\n"
                }
            }
            text += "  </testsuite>\n"
        }
        return text + "</testsuites>\n"
    }

    /// Writes the report to `path` atomically (relative to the working folder).
    package func write(to path: String) throws(OutputError) {
        let file = try OutputFile.atomic(path: path)
        file.buffer.append(contentsOf: xml.utf8)
        try file.commit()
    }

    /// `<failure message="first line">every line</failure>`.
    private static func element(_ name: String, _ text: String) -> String {
        let first = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        return "<\(name) message=\"\(attribute(first))\">\(escaped(text, inAttribute: false))</\(name)>"
    }

    /// `1234` ms as `1.234`.
    private static func seconds(_ milliseconds: Int) -> String {
        let ms = max(0, milliseconds)
        let fraction = String(ms % 1_000)
        return "\(ms / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    private static func attribute(_ text: String) -> String {
        escaped(text, inAttribute: true)
    }

    /// `text` as XML 1.0 character data: markup characters as entities, control characters (which
    /// XML 1.0 forbids) written as `\u001b` as in every other message, line breaks kept (as
    /// `&#10;` in attributes, which parsers would otherwise turn into spaces).
    private static func escaped(_ text: String, inAttribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in ControlEscapes.escaping(text, keepingLineBreaks: true).unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "'" where inAttribute: out += "&apos;"
            case "\n" where inAttribute: out += "&#10;"
            case "\t" where inAttribute: out += "&#9;"
            case "\u{FFFE}", "\u{FFFF}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
