/// Where a ``FieldReformer`` appends the values of its declared keys, in declared order.
///
/// On the fast path the values go straight into the output as JSON (a ``Field`` appended unchanged
/// is copied byte for byte); otherwise they build the record's object. Either way the record must
/// end with every declared key, or with none (the record is dropped); anything in between rejects
/// the record with a message naming the first missing key.
public struct FieldOutput {
    /// The keys an output writes and, made once per run, the text before each key's value.
    @_spi(Engine)
    public struct Layout: Sendable {
        /// The keys, in order.
        public let constants: [String]
        /// `{"first":`, `,"second":`, … : the escaped text before each key's value.
        public let prefixes: [[UInt8]]

        /// The layout of an object with `constants` as its keys, in order.
        public init(constants: [String]) {
            self.constants = constants
            prefixes = constants.enumerated().map { offset, key in
                var prefix: [UInt8] = [offset == 0 ? UInt8(ascii: "{") : UInt8(ascii: ",")]
                JSON.write(.string(key), into: &prefix)
                prefix.append(UInt8(ascii: ":"))
                return prefix
            }
        }
    }

    enum Mode {
        /// Writing text after each key's prefix.
        case writing(Layout)
        /// The declared constants, and the object being built.
        case building(constants: [String])
    }

    private let mode: Mode
    private var bytes: [UInt8]
    private var object: Object
    private let keyCount: Int
    private var overflow = false
    /// Why a field's text could not be read back, when it could not (the record is then rejected).
    private var unreadable: String?
    private var parser: JSONParser?
    /// How many values have been appended to this record so far.
    public private(set) var count = 0

    /// Output that builds an object with `constants` as its keys.
    init(building constants: [String]) {
        mode = .building(constants: constants)
        keyCount = constants.count
        bytes = []
        object = Object(minimumCapacity: constants.count)
    }

    /// Output that appends each value, after its key's prefix in `layout`, to `buffer`, taken back
    /// with ``takeBuffer()``.
    @_spi(Engine)
    public init(writing layout: Layout, into buffer: [UInt8]) {
        mode = .writing(layout)
        keyCount = layout.constants.count
        bytes = buffer
        object = Object()
    }

    /// The next declared key's value: the field as it stands.
    public mutating func append(_ field: Field) {
        guard count < keyCount else { return overflowed() }
        switch (mode, field.storage) {
        case (.writing(let layout), .text(let text, let canonical)):
            bytes.append(contentsOf: layout.prefixes[count])
            if canonical {
                bytes.append(contentsOf: text)
            } else {
                appendReencoded(text)
            }
            count += 1
        case (_, .value(let value)):
            append(value)
        case (.building, .text):
            do { append(try field.value) } catch {
                unreadable = error.message
                count += 1
            }
        }
    }

    /// The next declared key's value.
    public mutating func append(_ value: Value) {
        guard count < keyCount else { return overflowed() }
        switch mode {
        case .writing(let layout):
            bytes.append(contentsOf: layout.prefixes[count])
            JSON.write(value, into: &bytes)
        case .building(let constants):
            object.appendNew(key: constants[count], value: value)
        }
        count += 1
    }

    /// The next declared key's value is `null`.
    public mutating func appendNull() {
        append(Value.null)
    }

    private mutating func overflowed() {
        overflow = true
    }

    /// Writes text that is valid JSON but not in printed form (escapes, floats, nesting) the way
    /// the NDJSON writer prints its value.
    private mutating func appendReencoded(_ text: UnsafeRawBufferPointer) {
        if parser == nil { parser = JSONParser(limits: JSONLimits(maximumDepth: 1 << 16, maximumDocumentSize: Int.max)) }
        do throws(JSONError) {
            if let value = try parser?.parse(text) { JSON.write(value, into: &bytes) }
        } catch {
            unreadable = error.message
        }
    }

    /// Whether the record is complete (`true`), dropped (`false`, nothing appended), or wrong.
    @_spi(Engine)
    public func check(reformer: String) throws(RecordError) -> Bool {
        if let unreadable {
            throw RecordError(code: "unreadable-field", message: "a field given to reformer '\(reformer)' could not be read: \(unreadable)")
        }
        if overflow {
            throw RecordError(
                code: "undeclared-key",
                message: "reformer '\(reformer)' appended more values than its \(keyCount) declared keys")
        }
        if count == 0 { return false }
        guard count == keyCount else {
            let missing: String
            switch mode {
            case .building(let constants): missing = constants[count]
            case .writing(let layout): missing = layout.constants[count]
            }
            throw RecordError(
                code: "missing-key",
                message: "reformer '\(reformer)' did not emit its declared key '\(missing)' "
                    + "(appended \(count) of \(keyCount) values)")
        }
        return true
    }

    /// The text written so far, handed back to the engine.
    @_spi(Engine)
    public mutating func takeBuffer() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &bytes)
        return out
    }

    /// The built record, `nil` when nothing was appended; throws when only some keys were.
    func builtValue(reformer: String) throws(RecordError) -> Value? {
        try check(reformer: reformer) ? .object(object) : nil
    }
}
