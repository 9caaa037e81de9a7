import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTooling
import Testing

/// `reform schema --records`: the JSON Schema of what managers land. ``RecordSchema`` widens with
/// every record; ``LandedRecordSchemas`` lands a run for it without writing its outputs or state.
@Suite(.timeLimit(.minutes(10))) struct RecordSchemaTests {
    /// The schema of `lines` (JSON records), as pretty JSON text.
    static func schema(of lines: [String]) throws -> String {
        var schema = RecordSchema()
        for line in lines { schema.add(try JSON.parse(Array(line.utf8))) }
        return JSON.prettyString(schema.schema)
    }

    /// The member at `path` (keys through objects) of the JSON text `text`.
    static func member(_ text: String, _ path: String...) throws -> Value? {
        var value: Value? = try JSON.parse(Array(text.utf8))
        for key in path { value = value?.objectValue?[key] }
        return value
    }

    @Test func typesWidenAndAKeySomeRecordsLackIsOptional() throws {
        let text = try Self.schema(of: [
            #"{"id": 1, "price": 10, "name": "loft", "note": null, "tags": ["a"]}"#,
            #"{"id": 2, "price": 10.5, "name": null, "tags": []}"#,
            #"{"id": 3, "price": 7, "name": "studio", "note": "quiet", "tags": ["b", 3]}"#,
        ])
        #expect(try Self.member(text, "type") == "object")
        #expect(try Self.member(text, "properties", "id", "type") == "integer")
        // An int and a double meet as a number; a null adds "null".
        #expect(try Self.member(text, "properties", "price", "type") == "number")
        #expect(try Self.member(text, "properties", "name", "type") == ["string", "null"])
        #expect(try Self.member(text, "properties", "note", "type") == ["string", "null"])
        // An array's items are the schema of all its elements together.
        #expect(try Self.member(text, "properties", "tags", "type") == "array")
        #expect(try Self.member(text, "properties", "tags", "items", "type") == ["string", "integer"])
        // Keys in the order they first came; required only those every record had.
        #expect(try Self.member(text, "properties")?.objectValue?.keys == ["id", "price", "name", "note", "tags"])
        #expect(try Self.member(text, "required") == ["id", "price", "name", "tags"])
    }

    @Test func nestedObjectsHaveTheirOwnPropertiesAndRequiredKeys() throws {
        let text = try Self.schema(of: [
            #"{"user": {"login": "ann", "site": {"url": "https://a"}}, "labels": [{"name": "bug", "color": "red"}, {"name": "ui"}]}"#,
            #"{"user": {"login": "bo"}, "labels": []}"#,
        ])
        #expect(try Self.member(text, "properties", "user", "required") == ["login"])
        #expect(try Self.member(text, "properties", "user", "properties", "site", "properties", "url", "type") == "string")
        #expect(try Self.member(text, "properties", "labels", "items", "required") == ["name"])
        #expect(try Self.member(text, "properties", "labels", "items", "properties", "color", "type") == "string")
    }

    @Test func stringsThatAreAllDatesOrDateTimesSayTheirFormat() throws {
        let text = try Self.schema(of: [
            #"{"at": "2026-01-01T19:05:03Z", "day": "2026-01-31", "mixed": "2026-01-01", "zoned": "2026-11-28T10:00:00.125+08:00"}"#,
            #"{"at": "2026-02-01T00:00:00z", "day": "1999-12-01", "mixed": "soon", "zoned": "2026-11-28T10:00:00-05:30"}"#,
        ])
        #expect(try Self.member(text, "properties", "at", "format") == "date-time")
        #expect(try Self.member(text, "properties", "day", "format") == "date")
        #expect(try Self.member(text, "properties", "mixed", "format") == nil)
        #expect(try Self.member(text, "properties", "zoned", "format") == "date-time")
        // Not a date: month 13, a missing seconds field, a date-time is not a date.
        let others = try Self.schema(of: [#"{"a": "2026-13-01", "b": "2026-01-01T10:00Z", "c": "2026-01-01T10:00:00Z"}"#])
        #expect(try Self.member(others, "properties", "a", "format") == nil)
        #expect(try Self.member(others, "properties", "b", "format") == nil)
        #expect(try Self.member(others, "properties", "c", "format") == "date-time")
    }

    @Test func recordsThatAreNotObjectsAndEmptyArraysAreDescribedAsTheyCame() throws {
        let text = try Self.schema(of: [#"[]"#, #"{"a": 1}"#, #""text""#])
        #expect(try Self.member(text, "type") == ["object", "array", "string"])
        // An array never holding anything says nothing of its items.
        #expect(try Self.member(text, "items") == nil)
        #expect(try Self.member(text, "required") == ["a"])
    }

    static let pipeline = """
        reform: 1
        name: homes
        managers: { rent: {}, sale: {} }
        reformers:
          listing:
            keys: { id: kId }
            map: { id: id }
        runs:
          default:
            outputs:
              - { reform: [listing], sqlite: out/l.db, table: listings }
              - { reform: [listing], path: out/listings.ndjson }
        """

    @Test func aLandingDescribesEachManagersRecordsAndWritesNothing() throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline)
        try harness.write("rent.ndjson", #"{"id": 1, "rooms": 2}"# + "\n" + "{not json\n" + #"{"id": 2}"# + "\n")
        try harness.write("sale.ndjson", #"{"id": "s1", "price": 9.5}"# + "\n")
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson")), ("sale", harness.path("sale.ndjson"))]
        let pipeline = try harness.load("p.yaml")
        let both = try LandedRecordSchemas.infer(pipeline, options: options, managers: [])
        #expect(both.managers.map(\.name) == ["rent", "sale"])
        #expect(both.managers.map(\.records) == [2, 1])
        // The line that is not JSON could not land: counted, not described.
        #expect(both.summary.rejected == 1)
        let document = JSON.prettyString(both.document(pipeline: pipeline))
        #expect(try Self.member(document, "$schema") == "https://json-schema.org/draft/2020-12/schema")
        #expect(try Self.member(document, "$defs", "rent", "required") == ["id"])
        #expect(try Self.member(document, "$defs", "rent", "properties", "rooms", "type") == "integer")
        #expect(try Self.member(document, "$defs", "sale", "properties", "id", "type") == "string")
        // No output, no database, no dead-letter file, no state.
        #expect(!harness.exists("out"))
        #expect(!harness.exists("reform-dead-letter.ndjson"))
        #expect(try FilePaths.contents(of: harness.folder)?.sorted() == ["p.yaml", "rent.ndjson", "sale.ndjson"])

        let one = try LandedRecordSchemas.infer(pipeline, options: options, managers: ["sale"])
        let single = JSON.prettyString(one.document(pipeline: pipeline))
        #expect(try Self.member(single, "title") == "Records of manager 'sale' of homes")
        #expect(try Self.member(single, "properties", "price", "type") == "number")
    }

    @Test func aManagerTheRunDoesNotLandIsNamedWithTheOnesItDoes() throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline)
        #expect {
            try LandedRecordSchemas.infer(try harness.load("p.yaml"), options: RunOptions(), managers: ["rnet"])
        } throws: { error in
            (error as? RunError)?.message == "run 'default' of \(harness.path("p.yaml")) lands no manager called 'rnet'; "
                + "did you mean 'rent'?; it lands: rent, sale"
        }
    }
}
