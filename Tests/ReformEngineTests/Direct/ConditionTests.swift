import ReformEngine
import ReformSDK
import Testing

/// `Condition`, the `filter` step's language, over one record: each operator, the rules for
/// missing values and kinds, and the errors for what does not parse.
@Suite(.timeLimit(.minutes(10))) struct ConditionTests {
    static let record = try? JSON.parse(
        Array(
            #"""
            {"price": 120, "city": "shanghai", "tags": ["new", "view"], "address": {"city": "pudong"},
             "name": "Sunny flat", "sold": false, "agent": null, "rooms": 3}
            """#.utf8))

    @Test(arguments: [
        ("price >= 100", true), ("price < 100", false), ("price == 120", true), ("price != 120", false),
        ("city == 'shanghai'", true), ("city == \"beijing\"", false), ("city in ['shanghai', 'beijing']", true),
        ("tags contains 'view'", true), ("name startswith 'Sunny'", true), ("name endswith 'house'", false),
        ("address.city == 'pudong'", true), ("tags[0] == 'new'", true),
        ("price > 100 and rooms >= 3", true), ("price > 200 or city == 'shanghai'", true), ("not sold", true),
        ("not (price > 100 and rooms > 3)", true),
        // A path alone is true unless missing, null or false.
        ("city", true), ("sold", false), ("agent", false), ("missing", false),
        // Ordering across kinds is false, never an error.
        ("city > 3", false), ("missing < 5", false), ("agent == null", true),
    ])
    func holds(_ text: String, _ expected: Bool) throws {
        let record = try #require(Self.record)
        let condition = try Condition(parsing: text)
        #expect(condition.holds(for: record) == expected, "\(text)")
        #expect(condition.description == text)
    }

    @Test(arguments: ["price >", "price >= 100 and", "(price > 1", "price >= )", "price === 3", ""])
    func refusesWhatDoesNotParse(_ text: String) {
        #expect(throws: ValuePathError.self) { try Condition(parsing: text) }
    }

    @Test func namesThePathsItReads() throws {
        let condition = try Condition(parsing: "price > 100 and address.city == 'pudong'")
        #expect(condition.paths.map(\.description) == ["price", "address.city"])
    }
}
