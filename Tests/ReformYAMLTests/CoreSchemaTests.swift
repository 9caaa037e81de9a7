import ReformSDK
import ReformYAML
import Testing

/// Plain scalars resolve by the YAML 1.2 core schema, not YAML 1.1.
@Suite(.timeLimit(.minutes(10)))
struct CoreSchemaTests {
    private func value(_ yaml: String) throws -> Value {
        try #require(try YAMLLoader().loadValues("v: \(yaml)").first?.objectValue?["v"])
    }

    @Test(arguments: [
        ("yes", Value.string("yes")), ("on", "on"), ("no", "no"), ("off", "off"), ("y", "y"),
        ("true", true), ("True", true), ("FALSE", false), ("tRUE", "tRUE"),
        ("~", nil), ("null", nil), ("NULL", nil), ("", nil), ("nULL", "nULL"),
        ("0x1F", 31), ("0o17", 15), ("017", 17), ("+12", 12), ("-12", -12), ("0b101", "0b101"),
        ("1e3", 1000.0), ("1.5", 1.5), (".5", 0.5), ("-.5e-1", -0.05), ("1.", 1.0), ("1_000", "1_000"),
        ("9223372036854775807", .int(Int.max)), ("9223372036854775808", 9223372036854775808.0),
        ("-9223372036854775808", .int(Int.min)),
        ("'123'", "123"), ("\"true\"", "true"), ("!!str 12", "12"), ("!!int '12'", 12), ("!!float 1", 1.0),
        ("!!bool 'false'", false), ("!!null ''", nil), ("! 12", "12"), ("!local 12", 12), ("1:2", "1:2"),
    ])
    func resolves(_ yaml: String, _ expected: Value) throws {
        #expect(try value(yaml) == expected)
    }

    @Test func infinitiesAndNaN() throws {
        #expect(try value(".inf") == .double(.infinity))
        #expect(try value("-.INF") == .double(-.infinity))
        #expect(try value("+.Inf") == .double(.infinity))
        #expect(try value(".NaN").doubleValue?.isNaN == true)
        #expect(try value(".nAn") == "nAn" || value(".nAn") == ".nAn")
    }

    @Test func scalarKeepsTextAndStyle() throws {
        let document = try #require(try YAMLLoader().load("- 0x1F\n- 'a'\n- |\n  x\n").first)
        guard case .sequence(let items) = document.content,
            case .scalar(let hex) = items[0].content, case .scalar(let quoted) = items[1].content,
            case .scalar(let literal) = items[2].content
        else {
            Issue.record("unexpected shape")
            return
        }
        #expect(hex.text == "0x1F" && hex.style == .plain && hex.value == 31)
        #expect(quoted.style == .singleQuoted && quoted.value == "a")
        #expect(literal.style == .literal && literal.value == "x\n")
    }
}
