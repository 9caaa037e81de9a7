import ReformSDK

/// Reads CSV or TSV records from a file a chunk at a time, in memory bounded by the chunk and the
/// longest row: the rows ``CSVTokenizer`` splits (the same as a CSV body in memory gives), named
/// by the header row or the manager's `columns:`.
///
/// A row with the wrong number of fields is a bad record (dead-lettered with its line) and the
/// reader carries on, as a file's bad lines are; a header naming a column twice, or a quoted field
/// that never closes (a file cut short), damages the file as a whole and throws.
final class CSVReader {
    /// One row read: its record or what is wrong with it, the line it starts on, and its cells.
    struct ReadRow {
        let record: Result<Value, CSVProblem>
        let line: Int
        let cells: [String]
    }

    private var file: InputFile
    private var tokenizer: CSVTokenizer
    /// The byte between fields.
    var delimiter: UInt8 { tokenizer.delimiter }
    private var table: CSVTable
    private var ready: [ReadRow] = []
    private var index = 0
    private var ended = false
    private var chunk: [UInt8]

    /// Reads `file`, splitting fields at `delimiter`, with the given column names (`nil`: the
    /// header row's).
    init(file: consuming InputFile, delimiter: UInt8, columns: [String]?, chunkSize: Int = 1 << 20) {
        self.file = file
        tokenizer = CSVTokenizer(delimiter: delimiter)
        table = CSVTable(columns: columns)
        chunk = [UInt8](repeating: 0, count: max(chunkSize, 1))
    }

    /// The next data row, or `nil` at the end of the file.
    func next() throws(InputError) -> ReadRow? {
        while index >= ready.count {
            guard !ended else { return nil }
            ready.removeAll(keepingCapacity: true)
            index = 0
            try readChunk()
        }
        defer { index += 1 }
        return ready[index]
    }

    private func readChunk() throws(InputError) {
        let read = try chunk.withUnsafeMutableBufferPointer { buffer throws(InputError) -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return try file.read(into: base, count: buffer.count)
        }
        do throws(CSVProblem) {
            if read == 0 {
                ended = true
                if let problem = try tokenizer.finish(emit: take) { throw problem }
                return
            }
            let fed = chunk.withUnsafeBufferPointer { buffer in
                Result { () throws(CSVProblem) in try tokenizer.feed(UnsafeBufferPointer(rebasing: buffer[..<read]), emit: take) }
            }
            try fed.get()
        } catch {
            throw InputError(path: file.path, message: "the file " + error.description)
        }
    }

    private func take(_ cells: [String], line: Int) throws(CSVProblem) {
        guard let record = try table.record(cells) else { return }
        ready.append(ReadRow(record: record, line: line, cells: cells))
    }
}
