/// Cuts a regular file into byte ranges of about `batchSize` bytes for the workers to read
/// themselves (``RangedInput``): this thread reads nothing.
///
/// A file that grows while it is cut is read on when its last range ended at a line's end; when
/// that end cut a line, the input ends there, as a reader stops at the end it finds: the worker
/// of that range read the line to the end the file had then, so the rest of it, written since,
/// must not be skipped by a new range that goes on with the lines after it.
struct RangeBatcher: LineBatches {
    private let input: RangedInput
    private let batchSize: Int
    private var offset = 0
    private var size: Int

    /// Ranges of `input`, `batchSize` bytes each.
    init(input: RangedInput, batchSize: Int) throws(InputError) {
        self.input = input
        self.batchSize = max(batchSize, 1)
        size = try input.size()
    }

    var bytesRead: Int { min(offset, size) }

    mutating func next() throws(InputError) -> LineBatcher.Chunk? {
        // Checked once a batch, as the reading paths check once a chunk: Ctrl-C stops the run in
        // time to keep the dead-letter file.
        if let reason = input.stop.reason {
            throw InputError(path: input.path, message: reason)
        }
        if offset >= size {
            let grown = try input.size()
            guard offset < grown else { return nil }
            if offset > 0 {
                guard try input.endsLine(at: offset - 1) else { return nil }
            }
            size = grown
        }
        let start = offset
        offset = min(start + batchSize, size)
        return .range(input, start: start, end: offset)
    }

    mutating func recycle(_ bytes: consuming [UInt8]) {}
}
