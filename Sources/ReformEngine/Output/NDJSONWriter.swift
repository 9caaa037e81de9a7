@_spi(Engine) public import ReformSDK

/// Writes one compact JSON record per line, byte-identical to `jq -c`, as the records arrive.
///
/// Without columns each record is written whole. With explicit columns each record must be an
/// object and is written as an object of exactly those columns, in order, named by their headers;
/// a missing key is written as `null` so every line has the same keys. This is the hot path: a
/// record costs its JSON bytes appended straight to the output buffer and nothing else.
public struct NDJSONWriter: RecordWriter {
    private let output: OutputFile
    private let columns: [OutputColumn]
    /// For each column, `{"header":` (first) or `,"header":` (others), escaped once up front.
    private let memberPrefixes: [[UInt8]]
    /// The keys whole records are expected to have, in order (a keyed chain's); empty when unknown.
    private let expectedKeys: [String]
    /// For each expected key, `{"key":` (first) or `,"key":` (others), escaped once up front.
    private let expectedPrefixes: [[UInt8]]
    private var count = 0

    /// A writer into `output`; `columns` empty (or `nil`) writes whole records.
    ///
    /// `expectedKeys` are the keys, in order, that whole records usually have (a keyed chain's
    /// output): a record with exactly those keys gets their escaped text copied instead of
    /// re-escaped. Any other record is written as usual; the bytes are the same either way.
    public init(output: OutputFile, columns: [OutputColumn]? = nil, expectedKeys: [String]? = nil) {
        self.output = output
        self.columns = columns ?? []
        memberPrefixes = NDJSONWriter.memberPrefixes(self.columns.map(\.header))
        self.expectedKeys = self.columns.isEmpty ? expectedKeys ?? [] : []
        expectedPrefixes = NDJSONWriter.memberPrefixes(self.expectedKeys)
    }

    /// `{"first":`, `,"second":`, … for `keys`: the text before each member's value.
    static func memberPrefixes(_ keys: [String]) -> [[UInt8]] {
        FieldOutput.Layout(constants: keys).prefixes
    }

    /// Writes `record` with the pre-escaped key prefixes when it is an object whose keys are
    /// exactly ``expectedKeys``, in order; `false` (nothing written) otherwise.
    private func writeExpected(_ record: Value) -> Bool {
        guard !expectedKeys.isEmpty, case .object(let object) = record else { return false }
        let members = object.members
        guard members.count == expectedKeys.count, !members.isEmpty else { return false }
        for i in members.indices where members[i].key != expectedKeys[i] { return false }
        for i in members.indices {
            output.buffer.append(contentsOf: expectedPrefixes[i])
            JSON.write(members[i].value, into: &output.buffer)
        }
        output.buffer.append(UInt8(ascii: "}"))
        return true
    }

    /// Appends the record and a newline, and flushes when the buffer is full.
    public mutating func write(_ record: Value, style: RowStyle) throws(OutputError) {
        count += 1
        if columns.isEmpty {
            if !writeExpected(record) { JSON.write(record, into: &output.buffer) }
        } else {
            let object = try CellText.object(record, number: count, format: .ndjson, output: output)
            for i in columns.indices {
                output.buffer.append(contentsOf: memberPrefixes[i])
                JSON.write(object[columns[i].key] ?? .null, into: &output.buffer)
            }
            output.buffer.append(UInt8(ascii: "}"))
        }
        output.buffer.append(UInt8(ascii: "\n"))
        try output.flushIfFull()
    }

    /// Nothing to close: NDJSON has no trailer, and no records means no lines.
    public mutating func finish() throws(OutputError) {}
}
