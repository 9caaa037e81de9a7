public import ReformSDK

/// Values of every kind and awkward shape that a real API sends sooner or later, used in place of a
/// sample record's fields: the reformer must reject the record or reform it, never crash.
public enum OddValues {
    /// Scalars, strings and containers of every kind, including huge, empty, deep and unusual ones.
    public static let all: [Value] = {
        var deep: Value = .int(1)
        for depth in 0..<64 { deep = depth % 2 == 0 ? .array([deep]) : ["nested": deep] as Value }
        return [
            .null, .bool(true), .bool(false), .int(0), .int(-1), .int(Int.max), .int(Int.min),
            .double(-0.0), .double(1e308), .double(-2.5e-308), .double(0.5),
            .string(""), .string(" "), .string("上海 浦东 🏠 e\u{301} \u{200B}"), .string("\u{0}\u{1F}\"\\"),
            .string("https://"), .string("not a url"), .string(String(repeating: "x", count: 100_000)),
            .array([]), .array([.int(1), .string("a"), .null]), .object(Object()), ["id": 1] as Value, deep,
        ]
    }()

    /// Whole records that are not objects, or are objects with nothing useful in them.
    public static let records: [Value] = [
        .null, .int(42), .string("record"), .array([]), .array([.object(Object())]), .object(Object()),
        ["": nil] as Value,
    ]

    /// Every variant of `sample`: each top-level field removed, and replaced by each odd value.
    public static func variants(of sample: Value) -> [Value] {
        guard case .object(let object) = sample else { return [] }
        var out: [Value] = []
        for member in object.members {
            var removed = object
            removed[member.key] = nil
            out.append(.object(removed))
            for odd in all {
                var replaced = object
                replaced[member.key] = odd
                out.append(.object(replaced))
            }
        }
        return out
    }
}
