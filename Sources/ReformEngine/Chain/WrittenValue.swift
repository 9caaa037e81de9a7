import ReformSDK

extension Value {
    /// The value as it reads back from the JSON the writers print of it: itself, except for the
    /// doubles JSON text does not tell apart from other values — NaN (written `null`), infinities
    /// (written as the largest finite double) and integral doubles of 15 digits or more (written
    /// as integers, read back as ints, which compare exactly with other ints) — in arrays and
    /// objects too.
    ///
    /// `sort` and `dedupe` compare their keys this way, so that records are ordered and matched as
    /// their output lines show them, and as a sort run on the written lines orders them
    /// (``HeldLines``). Other values are returned as they are, without a copy.
    var asWritten: Value {
        guard readsBackDifferently else { return self }
        var text: [UInt8] = []
        JSON.write(self, into: &text)
        var parser = JSONParser(limits: JSONLimits(maximumDepth: Int.max, maximumDocumentSize: Int.max))
        return text.withUnsafeBytes { text in (try? parser.parse(text)) ?? self }
    }

    /// Whether the value holds a double that ``asWritten`` changes.
    private var readsBackDifferently: Bool {
        switch self {
        case .double(let d): !d.isFinite || (d.magnitude >= 1e15 && d == d.rounded(.towardZero))
        case .array(let items): items.contains { $0.readsBackDifferently }
        case .object(let object): object.members.contains { $0.value.readsBackDifferently }
        case .null, .bool, .int, .string: false
        }
    }
}
