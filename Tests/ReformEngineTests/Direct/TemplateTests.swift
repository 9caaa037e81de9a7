import ReformEngine
import ReformSDK
import Testing

/// `Template`, the `set` step's and mappings' strings over a record: fields, optional fields,
/// literal braces, how values print, and what rejects a record.
@Suite(.timeLimit(.minutes(10))) struct TemplateTests {
    static let record = try? JSON.parse(
        Array(
            #"{"name": "Sunny", "price": 120.5, "rooms": 3, "new": true, "tags": ["a", "b"], "address": {"city": "pudong"}, "agent": null}"#
                .utf8))

    @Test(arguments: [
        ("{name}", "Sunny"), ("{name} ({address.city})", "Sunny (pudong)"), ("{rooms} rooms at {price}", "3 rooms at 120.5"),
        ("{new}", "true"), ("{tags}", #"["a","b"]"#), ("{tags[1]}", "b"), ("{{literal}} {name}", "{literal} Sunny"),
        ("agent: {agent?}", "agent: "), ("{missing?}-{name}", "-Sunny"), ("no fields", "no fields"),
    ])
    func renders(_ text: String, _ expected: String) throws {
        let record = try #require(Self.record)
        #expect(try Template(parsing: text).render(record) == expected)
    }

    @Test(arguments: ["{agent}", "{missing}", "{address.street}"])
    func rejectsARecordWithoutARequiredField(_ text: String) throws {
        let record = try #require(Self.record)
        let template = try Template(parsing: text)
        do {
            _ = try template.render(record)
            Issue.record("\(text) rendered without its field")
        } catch {
            #expect(error.code == "missing-field")
            #expect(error.message.contains("?}"), "the message says how to allow it: \(error.message)")
        }
    }

    @Test(arguments: ["{name", "name}", "{}", "{a..b}"])
    func refusesWhatDoesNotParse(_ text: String) {
        #expect(throws: ValuePathError.self) { try Template(parsing: text) }
    }
}
