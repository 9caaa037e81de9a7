/// The fields a ``FieldReformer`` reads from one record, in its ``Reformer/fieldsRead(from:)``
/// order; each is either the JSON text it had in the input or, off the fast path, a value.
///
/// The text is only valid during the call that receives it: keep a ``Field/value`` (or a
/// ``Field/string``), never the ``Field`` itself.
public struct RecordFields {
    @usableFromInline
    enum Storage {
        case text(base: UnsafeRawPointer, ranges: UnsafePointer<Range<Int>?>, canonical: UnsafePointer<Bool>, count: Int)
        case values([Value?])
    }

    @usableFromInline
    let storage: Storage

    /// Fields given as values, `nil` where the record lacks one.
    public init(values: [Value?]) {
        storage = .values(values)
    }

    /// Fields given as byte ranges of the text at `base`, `nil` where the record lacks one;
    /// `canonical[i]` says whether field `i`'s text is exactly what ``JSON/write(_:into:)``
    /// prints for it. The pointers must stay valid while the fields are in use.
    @_spi(Engine)
    public init(text base: UnsafeRawPointer, ranges: UnsafePointer<Range<Int>?>, canonical: UnsafePointer<Bool>, count: Int) {
        storage = .text(base: base, ranges: ranges, canonical: canonical, count: count)
    }

    /// How many fields were asked for (present or not).
    public var count: Int {
        switch storage {
        case .text(_, _, _, let count): count
        case .values(let values): values.count
        }
    }

    /// The field at `position` in the ``Reformer/fieldsRead(from:)`` list, or `nil` when the record
    /// does not have it (or `position` is past the list).
    public subscript(position: Int) -> Field? {
        guard position >= 0 && position < count else { return nil }
        switch storage {
        case .text(let base, let ranges, let canonical, _):
            guard let range = ranges[position] else { return nil }
            return Field(text: UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count), canonical: canonical[position])
        case .values(let values):
            return values[position].map(Field.init(value:))
        }
    }
}

/// One field of a record, as JSON text from the input or as a value.
public struct Field {
    @usableFromInline
    enum Storage {
        case text(UnsafeRawBufferPointer, canonical: Bool)
        case value(Value)
    }

    @usableFromInline
    let storage: Storage

    init(text: UnsafeRawBufferPointer, canonical: Bool) {
        storage = .text(text, canonical: canonical)
    }

    init(value: Value) {
        storage = .value(value)
    }

    /// The field's value, built from its text when it came as text.
    ///
    /// The text was checked when the line was read, so this fails only when the value is deeper
    /// than the parser allows; the error names the limit.
    public var value: Value {
        get throws(RecordError) {
            switch storage {
            case .value(let value): return value
            case .text(let text, _):
                var parser = JSONParser(limits: JSONLimits(maximumDepth: 1 << 16, maximumDocumentSize: Int.max))
                do { return try parser.parse(text) } catch {
                    throw RecordError(code: "field-too-large", message: "a field could not be read: \(error.message)")
                }
            }
        }
    }

    /// The field as a string, when it is one (building the string; nothing else is built).
    public var string: String? {
        switch storage {
        case .value(let value): return value.stringValue
        case .text(let text, _):
            guard text.first == UInt8(ascii: "\"") else { return nil }
            return try? value.stringValue
        }
    }

    /// Whether the field is JSON `null`.
    public var isNull: Bool {
        switch storage {
        case .value(let value): if case .null = value { return true } else { return false }
        case .text(let text, _): return text.first == UInt8(ascii: "n")
        }
    }

    /// The field's JSON text, when it came as text (valid only during the call that received it).
    public var text: UnsafeRawBufferPointer? {
        if case .text(let text, _) = storage { return text }
        return nil
    }
}
