import ReformEngine
import ReformSDK
import Testing

/// Responses that are not one JSON document (`format:`): CSV with RFC 4180 quoting and NDJSON,
/// paged like any other, and a broken CSV page refused whole.
@Suite(.timeLimit(.minutes(10))) struct ResponseFormatTests {
    private func manager(_ path: String, format: String) -> String {
        service()
            + "\nmanagers:\n  m: { service: api, path: \(path), format: \(format), params: { per_page: { type: int, default: 10 } }, "
            + "paging: { policy: page, param: page, start: 1, size_param: per_page, stop: [empty_page, short_page] } }"
    }

    @Test func csvRowsAreRecordsOfTextAndPageToTheEnd() async throws {
        let server = try TestServer()
        let records = try await server.manager("m", in: server.pipeline(manager("/csv", format: "csv"))).loadAll().records
        #expect(records.count == 47)
        #expect(records[0] == ["id": "1", "name": "item 1", "price": "1.25", "tags": "t1", "note": ""])
        #expect(records[4].objectValue?["name"] == "商品 5")
        #expect(records[6].objectValue?["note"] == "a, \"b\"\nc", "a quoted field keeps its comma, quotes and line break")
    }

    @Test func ndjsonLinesAreRecords() async throws {
        let server = try TestServer()
        let records = try await server.manager("m", in: server.pipeline(manager("/ndjson", format: "ndjson"))).loadAll().records
        #expect(records.count == 47)
        #expect(records[46] == ["id": 47, "name": "item 47", "price": 58.75, "tags": ["t2"]])
    }

    @Test func aCSVPageThatDoesNotParseLandsNothingAndSaysWhere() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + "\nmanagers:\n  m: { service: api, path: /csv, format: csv, params: { bad: 1 } }")
        do {
            _ = try await server.manager("m", in: pipeline).load()
            Issue.record("a broken CSV page landed")
        } catch {
            #expect((error as? ManagerError)?.kind == .invalidBody)
            #expect(
                "\(error)".contains(
                    "the csv body has a quoted field that never ends (it opens on line 13); nothing of this page was landed"),
                "\(error)")
        }
    }

    @Test func aSemicolonCSVWithADecimalCommaSplitsAtItsDelimiter() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service()
                + "\nmanagers:\n  m: { service: api, path: /csv, format: csv, csv: { delimiter: \";\" }, "
                + "params: { delimiter: \";\" } }")
        let records = try await server.manager("m", in: pipeline).load().records
        #expect(records.count == 10)
        #expect(records[1] == ["id": "2", "name": "item 2", "price": "2,5", "tags": "t2", "note": ""])
        #expect(records[6].objectValue?["note"] == "a, \"b\"\nc")
    }

    @Test func columnsNameABodyWithoutAHeaderRow() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service()
                + "\nmanagers:\n  m: { service: api, path: /csv, format: csv, csv: { columns: [id, name, price, tags, note] }, "
                + "params: { header: 0, per_page: 3 } }")
        let records = try await server.manager("m", in: pipeline).load().records
        #expect(records.map { $0.objectValue?["id"] } == ["1", "2", "3"], "the first row is data")
    }

    @Test func csvOptionsAreCheckedWhereTheyAre() throws {
        func manager(_ line: String) -> String {
            "reform: 1\nservices: { api: { base_url: \"http://x.test\" } }\nmanagers:\n  m:\n    service: api\n" + line
        }
        #expect(
            try loadDiagnostics(manager("    csv: { delimiter: \";\" }\n")) == [
                "p.yaml:6:10: error: 'csv' of manager 'm' says how a CSV or TSV body is split; give 'format: csv' or 'format: tsv' too"
            ])
        #expect(
            try loadDiagnostics(manager("    format: csv\n    csv: { delimiter: \"ab\" }\n")).first?.contains(
                "'delimiter' in 'csv' of manager 'm' is one ASCII character (like ';' or '|', or 'tab'), not a quote or a line break; got 'ab'"
            )
                == true)
    }

    @Test func recordsIsRefusedWithARowFormat() throws {
        let server = try TestServer()
        #expect {
            try server.pipeline(service() + "\nmanagers:\n  m: { service: api, path: /csv, format: csv, records: data }")
        } throws: { error in
            "\(error)".contains("'records' of manager 'm' is a path into a JSON body; a csv body's rows are the records")
        }
    }
}
