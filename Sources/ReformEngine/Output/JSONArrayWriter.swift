public import ReformSDK

/// Writes records as one JSON array, streamed, laid out exactly as `jq .` prints an array.
///
/// The file is byte-identical to `reform run --format ndjson | jq -s .`: `[`, each record
/// pretty-printed with two-space indentation one level in, separated by `,` and a newline, then
/// `]`. No records give `[]`, so the output is valid JSON even when empty. With explicit columns
/// each record is projected onto them as ``NDJSONWriter`` does.
public struct JSONArrayWriter: RecordWriter {
    private let output: OutputFile
    private let columns: [OutputColumn]
    private var count = 0
    /// One record pretty-printed at the top level, re-indented into the output; reused.
    private var scratch: [UInt8] = []

    /// A writer into `output`; `columns` empty (or `nil`) writes whole records.
    public init(output: OutputFile, columns: [OutputColumn]? = nil) {
        self.output = output
        self.columns = columns ?? []
    }

    /// Appends the record as the next array element, and flushes when the buffer is full.
    public mutating func write(_ record: Value, style: RowStyle) throws(OutputError) {
        count += 1
        var element = record
        if !columns.isEmpty {
            let object = try CellText.object(record, number: count, format: .json, output: output)
            var projected = Object(minimumCapacity: columns.count)
            for column in columns { projected[column.header] = object[column.key] ?? .null }
            element = .object(projected)
        }
        scratch.removeAll(keepingCapacity: true)
        JSON.writePretty(element, indent: 2, into: &scratch)
        output.buffer.append(contentsOf: count == 1 ? "[\n  ".utf8 : ",\n  ".utf8)
        // JSON strings never hold a raw newline, so every newline byte starts a line to indent.
        var runStart = 0
        for i in scratch.indices where scratch[i] == UInt8(ascii: "\n") {
            output.buffer.append(contentsOf: scratch[runStart...i])
            output.buffer.append(contentsOf: "  ".utf8)
            runStart = i + 1
        }
        output.buffer.append(contentsOf: scratch[runStart...])
        try output.flushIfFull()
    }

    /// Closes the array (or writes `[]` when there were no records).
    public mutating func finish() throws(OutputError) {
        output.buffer.append(contentsOf: count == 0 ? "[]\n".utf8 : "\n]\n".utf8)
    }
}
