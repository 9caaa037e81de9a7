import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import ReformYAML
import Testing

@Suite("Loading pipelines", .timeLimit(.minutes(10)))
struct PipelineLoaderTests {
    let loader = PipelineLoader(environment: ["TOKEN": "s3cret", "CITY": "hangzhou"])

    /// The diagnostics (first lines only) of loading `yaml`, or [] when it loads.
    func diagnostics(_ yaml: String) throws -> [String] {
        try loadDiagnostics(yaml, environment: ["TOKEN": "s3cret", "CITY": "hangzhou"])
    }

    @Test func shippedPropertyListLoadsIntoAnImmutablePlan() throws {
        let pipeline = try loader.load(path: ProjectRoot.path + "/Pipelines/property-list.yaml")
        #expect(pipeline.name == "property-list")
        #expect(pipeline.managers.map(\.ref.name) == ["zufang", "xinfang", "ershoufang"])
        #expect(pipeline.managers.map(\.ref.index) == [0, 1, 2])
        let keys = try #require(pipeline.reformers["property-list"]?.keys)
        #expect(
            keys.constants == [
                "kPropertyListDataKeyID", "kPropertyListDataKeyName", "kPropertyListDataKeyTitle", "kPropertyListDataKeyImage",
            ])
        let xinfang = try #require(pipeline.manager(named: "xinfang"))
        #expect(xinfang.paging.policy == .page)
        #expect(xinfang.paging.stop == [.shortPage])
        #expect(xinfang.params.map(\.name) == ["city", "page_size"])  // shared through a YAML anchor
        #expect(pipeline.run(named: nil)?.name == "default")
        #expect(
            pipeline.run(named: "rows")?.outputs.first?.rows?.columns.map(\.key)
                == ["kPropertyListDataKeyID", "kPropertyListDataKeyName", "kPropertyListDataKeyTitle"])
    }

    @Test func unknownKeysAreReportedWithASuggestion() throws {
        let found = try diagnostics(
            """
            reform: 1
            managers:
              a:
                pagin: { policy: page }
                fixtures_dir: x
            """)
        #expect(
            found == [
                "p.yaml:4:5: error: unknown key 'pagin' in manager 'a'; did you mean 'paging'?",
                "p.yaml:5:5: error: unknown key 'fixtures_dir' in manager 'a'; did you mean 'fixtures'?",
            ])
    }

    @Test func everyErrorInTheFileIsReportedNotOnlyTheFirst() throws {
        let found = try diagnostics(
            """
            reform: 1
            managers:
              a:
                takeoff: cancel-inflight
                paging: { policy: pages }
                params: { n: { type: integer, min: ten } }
            runs:
              default: { managers: [a, b], reform: [nope] }
            """)
        #expect(
            found == [
                "p.yaml:4:14: error: unknown takeoff policy 'cancel-inflight'; did you mean 'cancel-in-flight'? (expected one of: ignore-new, cancel-in-flight, parallel)",
                "p.yaml:5:23: error: unknown paging policy 'pages'; did you mean 'page'? (expected one of: none, page, offset, cursor, link, next-url)",
                "p.yaml:6:26: error: unknown parameter type 'integer'; did you mean 'int'? (expected one of: string, int, double, bool)",
                "p.yaml:6:40: error: 'min' of parameter 'n' of manager 'a' must be a number, not the string 'ten'",
                "p.yaml:8:28: error: unknown manager 'b'; did you mean 'a'? (declared: a)",
                "p.yaml:8:41: error: unknown reformer 'nope' (none is declared)",
            ])
    }

    @Test func referencesToUndeclaredNamesAndDuplicatesAreErrors() throws {
        let found = try diagnostics(
            """
            reform: 1
            services:
              api: { base_url: "http://127.0.0.1:1" }
            managers:
              a: { service: apj }
            reformers:
              r: { keys: { id: kID }, from: { b: { id: id } } }
            rows:
              row: { columns: [id], style: { c: highlight } }
            runs:
              default: { reform: [r], output: { rows: rowz } }
            """)
        #expect(
            found == [
                "p.yaml:5:17: error: unknown service 'apj'; did you mean 'api'? (declared: api)",
                "p.yaml:7:35: error: unknown manager 'b'; did you mean 'a'? (declared: a)",
                "p.yaml:9:34: error: unknown manager 'c'; did you mean 'a'? (declared: a)",
                "p.yaml:11:43: error: unknown row shape 'rowz'; did you mean 'row'? (declared: row)",
            ])
    }

    @Test func duplicateNamesAreErrorsAtBothPlaces() throws {
        let found = try diagnostics("reform: 1\nmanagers:\n  a: {}\n  a: {}\n")
        #expect(
            found == [
                "p.yaml:3:3: note: key 'a' first appears here",
                "p.yaml:4:3: error: duplicate key 'a' in this mapping; YAML requires each key once",
            ])
    }

    @Test func keysUsedButNotDeclaredAreCaughtThroughTheChain() throws {
        let found = try diagnostics(
            """
            reform: 1
            managers:
              a: {}
            reformers:
              r: { keys: { id: kID, name: kName }, map: { id: id, nme: name } }
              cheap: { steps: [ { filter: "price > 3" } ] }
            rows:
              row: { columns: [id, title] }
            runs:
              default: { reform: [r, cheap], output: { rows: row } }
            """)
        #expect(
            found == [
                "p.yaml:5:45: error: 'map' of reformer 'r' has no rule for 'name'; every declared key needs one (write 'field?' for an optional field)",
                "p.yaml:5:55: error: 'nme' in 'map' of reformer 'r' is not a declared key; did you mean 'name'? (declared: id, name)",
            ])
        let chain = try diagnostics(
            """
            reform: 1
            managers:
              a: {}
            reformers:
              r: { keys: { id: kID, name: kName }, map: { id: id, name: name } }
              cheap: { steps: [ { filter: "price > 3" } ] }
            rows:
              row: { columns: [id, title] }
            runs:
              default: { reform: [r, cheap], output: { rows: row } }
            """)
        #expect(
            chain == [
                "p.yaml:6:23: error: step 'filter' of reformer 'cheap' uses 'price', which records do not carry at that point; they carry: id, name",
                "p.yaml:10:50: error: row shape 'row' uses 'title', which the chain of run 'default' does not emit; it emits: id, name",
            ])
    }

    @Test func environmentReferencesResolveOrNameTheMissingVariable() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "p.yaml",
            """
            reform: 1
            name: "${CITY}-${REGION:-east}"
            managers:
              a: { params: { city: "${NOPE}" } }
            """)
        #expect(throws: PipelineLoadError.self) { try loader.load(path: path) }
        do {
            _ = try loader.load(path: path)
        } catch {
            #expect(
                error.diagnostics.map(\.message) == [
                    "environment variable 'NOPE' is not set; set it, or give a default with ${NOPE:-value} (in parameter 'city' of manager 'a')"
                ])
        }
        try folder.write("q.yaml", "reform: 1\nname: \"${CITY}-${REGION:-east}\"\nmanagers: { a: {} }\n")
        #expect(try loader.load(path: folder.path + "/q.yaml").name == "hangzhou-east")
    }

    @Test func anOutputAsksForTheCSVByteOrderMarkWithBom() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "p.yaml",
            "reform: 1\nmanagers: { m: {} }\nruns:\n  default: { output: { format: csv, bom: true } }\n"
                + "  two: { outputs: [ { format: csv, path: a.csv, bom: true }, { path: b.csv } ] }\n")
        let pipeline = try loader.load(path: path)
        #expect(pipeline.run(named: "default")?.outputs.map(\.byteOrderMark) == [true])
        #expect(pipeline.run(named: "two")?.outputs.map(\.byteOrderMark) == [true, false])
        #expect(
            try diagnostics("reform: 1\nmanagers: { m: {} }\nruns: { default: { output: { format: ndjson, bom: true } } }\n") == [
                "p.yaml:3:51: error: 'bom' (the UTF-8 byte-order mark spreadsheet programs need) is for csv outputs; this output is ndjson"
            ])
        #expect(
            try diagnostics("reform: 1\nmanagers: { m: {} }\nruns: { default: { output: { bom: yes } } }\n") == [
                "p.yaml:3:35: error: 'bom' of run 'default' must be true or false, not the string 'yes'"
            ])
    }

    @Test func diagnosticsRenderTheSourceLineAndACaret() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("p.yaml", "reform: 1\nmanagers:\n  a: { takeoff: sometimes }\n")
        do {
            _ = try loader.load(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(
                error.description == """
                    \(path):3:17: error: unknown takeoff policy 'sometimes'; expected one of: ignore-new, cancel-in-flight, parallel
                      a: { takeoff: sometimes }
                                    ^
                    """)
        }
    }

    @Test func yamlSyntaxErrorsCarryLineAndColumn() throws {
        let found = try diagnostics("reform: 1\nmanagers:\n  a: { path: \"/x }\n")
        #expect(found.first { $0.contains(": error: ") }?.hasPrefix("p.yaml:4:1: error: found unexpected end of stream") == true)
    }

    /// A mistake inside an anchored node is one mistake, reported once at its place however many
    /// aliases use the node (it was printed once per use, each at the anchor's line); a different
    /// mistake at the same place still gets its own line.
    @Test func aMistakeInsideAnAnchorIsReportedOnce() throws {
        let found = try loadDiagnostics(
            """
            reform: 1
            managers:
              a: &m { recordz: list }
              b: *m
              c: *m
              d: { <<: *m, paging: { policy: pages } }
            runs:
              default: { managers: [a, b, c, d], output: { format: ndjson } }
            """)
        #expect(
            found == [
                "p.yaml:3:11: error: unknown key 'recordz' in manager 'a'; did you mean 'records'? "
                    + "(and 3 more like it here: YAML aliases use this node more than once)",
                "p.yaml:6:34: error: unknown paging policy 'pages'; did you mean 'page'? (expected one of: none, page, offset, cursor, link, next-url)",
            ], "\(found)")
    }

    /// Two mistakes at one place of the file that no alias copies are two (the folding of a
    /// mistake repeated through aliases first swallowed the second: `pick: [x, y]` reported only x).
    @Test func twoMistakesAtOnePlaceOutsideAnAnchorAreBothReported() throws {
        let found = try loadDiagnostics(
            """
            reform: 1
            managers: { a: {} }
            reformers:
              m: { keys: { id: id }, map: { id: id } }
              r: { steps: [ { pick: [x, y] } ] }
            runs:
              default: { reform: [m, r], output: { format: ndjson } }
            """)
        #expect(
            found == [
                "p.yaml:5:19: error: step 'pick' of reformer 'r' uses 'x', which records do not carry at that point; they carry: id",
                "p.yaml:5:19: error: step 'pick' of reformer 'r' uses 'y', which records do not carry at that point; they carry: id",
            ], "\(found)")
    }
}
