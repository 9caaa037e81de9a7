/// Something that yields records one at a time, holding a bounded amount of the input in memory.
public protocol RecordReader: ~Copyable {
    /// The next record, or `nil` at the end of the input; throws only when the input cannot be read.
    mutating func next() throws(InputError) -> InputRecord?
}

/// How an input file's records are laid out.
public enum InputFormat: Sendable, Hashable {
    /// One JSON document per line (NDJSON / JSON Lines).
    case ndjson
    /// One JSON document: an array whose elements are the records, or any other value as one record.
    case json

    /// `.json` for paths ending in `.json`, `.ndjson` for the rest (`.ndjson`, `.jsonl`, `-`, …).
    public init(path: String) {
        self = path.hasSuffix(".json") ? .json : .ndjson
    }
}
