public import ReformSDK

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
    private var count = 0

    /// A writer into `output`; `columns` empty (or `nil`) writes whole records.
    public init(output: OutputFile, columns: [OutputColumn]? = nil) {
        self.output = output
        self.columns = columns ?? []
        memberPrefixes = self.columns.enumerated().map { offset, column in
            var prefix: [UInt8] = [offset == 0 ? UInt8(ascii: "{") : UInt8(ascii: ",")]
            JSON.write(.string(column.header), into: &prefix)
            prefix.append(UInt8(ascii: ":"))
            return prefix
        }
    }

    /// Appends the record and a newline, and flushes when the buffer is full.
    public mutating func write(_ record: Value, style: RowStyle) throws(OutputError) {
        count += 1
        if columns.isEmpty {
            JSON.write(record, into: &output.buffer)
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
