import ReformSDK

/// Cuts an NDJSON input into batches of whole lines, for workers to parse in parallel.
///
/// Each batch is read straight into its own array, about `batchSize` bytes cut after the last
/// newline, the partial line after it carried into the next batch. Arrays handed back with
/// ``recycle(_:)`` are read into again, so a long input allocates only the few batches in flight.
/// A batch holds at least one line; the input's last line needs no newline. A line longer than the
/// NDJSON limit comes as ``Chunk/longLine(_:)`` and is skipped without being held, as
/// ``NDJSONReader`` does.
struct LineBatcher: LineBatches, ~Copyable {
    /// What the next read gives.
    enum Chunk {
        /// Whole lines in `bytes[0..<count]` (each ending in `\n`, except perhaps the input's last).
        case lines([UInt8], count: Int)
        /// One line longer than the limit, skipped (blank, or too long).
        case longLine(NDJSONLine.LongLine)
        /// The lines that start in `start..<end` of a regular file, for the worker to read
        /// (``RangeBatcher``).
        case range(RangedInput, start: Int, end: Int)
    }

    private var file: InputFile
    private let batchSize: Int
    private let maximumLine: Int
    /// The start of a line whose end has not been read yet.
    private var carry: [UInt8] = []
    private var spare: [[UInt8]] = []
    private var atEnd = false

    /// Batches of `path` (`-` for standard input; `.gz` decompressed); `stop` asks the run to stop.
    init(
        path: String, batchSize: Int, maximumLine: Int = NDJSONReader.defaultLimits.maximumDocumentSize + 1, stop: StopToken = .process
    ) throws(InputError) {
        self.maximumLine = maximumLine
        // The file's own buffer is not used: batches are read into their own arrays.
        file = path == "-" ? InputFile(descriptor: 0, path: "<stdin>", chunkSize: 1) : try InputFile(path: path, chunkSize: 1)
        file.stop = stop
        self.batchSize = max(batchSize, 1)
    }

    /// Bytes read from the input so far (compressed bytes for `.gz`).
    var bytesRead: Int { file.bytesRead }

    /// Takes back a batch's array once its lines are no longer needed, to read into again.
    mutating func recycle(_ bytes: consuming [UInt8]) {
        if spare.count < 8 { spare.append(bytes) }
    }

    /// The next batch, or `nil` at the end of the input.
    mutating func next() throws(InputError) -> Chunk? {
        // A line's bytes are never read past the NDJSON limit (plus its newline), so a line is too
        // long here exactly when the streaming reader finds it too long.
        let longest = maximumLine + 1
        var capacity = min(carry.count + batchSize, max(longest, batchSize))
        while true {
            if atEnd {
                guard !carry.isEmpty else { return nil }
                defer { carry = [] }
                return .lines(carry, count: carry.count)
            }
            let (batch, count) = try read(upTo: capacity)
            if let last = LineBatcher.lastNewline(in: batch, count: count) {
                carry.removeAll(keepingCapacity: true)
                carry.append(contentsOf: batch[(last + 1)..<count])
                return .lines(batch, count: last + 1)
            }
            carry = Array(batch[..<count])
            if carry.count > maximumLine {
                let blank = NDJSONLine.isBlank(carry, 0..<carry.count)
                carry = []
                return .longLine(try skipLine(blank: blank) ? .blank : .tooLong)
            }
            capacity = min(carry.count * 2 + batchSize, longest)  // one line longer than a batch
        }
    }

    /// An array holding the carried bytes followed by what the input gives, up to `capacity`
    /// bytes or its end, and how many bytes it holds.
    private mutating func read(upTo capacity: Int) throws(InputError) -> ([UInt8], Int) {
        var batch = spare.popLast() ?? []
        // Room for a carried line on top of a batch, so that a recycled array fits the next batch
        // whatever line it carries. Sized to each batch's own carry, a recycled array was often a
        // few bytes short of the next batch and a new one was zeroed and faulted in: a `--jobs 2`
        // run of 200,000 records made 5,585 page faults, 4,136 with this room.
        if batch.count < capacity { batch = [UInt8](repeating: 0, count: max(capacity, batchSize + batchSize / 4)) }
        var count = carry.count
        var failure: InputError?
        batch.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            carry.withUnsafeBufferPointer { source in
                if let start = source.baseAddress { base.update(from: start, count: source.count) }
            }
            while count < capacity {
                do throws(InputError) {
                    let n = try file.read(into: base + count, count: capacity - count)
                    if n == 0 { break }
                    count += n
                } catch {
                    failure = error
                    break
                }
            }
        }
        if let failure { throw failure }
        atEnd = file.atEnd
        return (batch, count)
    }

    /// Reads on to the end of an overlong line and keeps what follows it; whether the line is
    /// blank, given whether its bytes so far are.
    private mutating func skipLine(blank: Bool) throws(InputError) -> Bool {
        var blank = blank
        while !atEnd {
            let (chunk, count) = try read(upTo: batchSize)
            carry = []
            let newline = chunk[..<count].firstIndex(of: 0x0A)
            if blank { blank = NDJSONLine.isBlank(chunk, 0..<(newline ?? count)) }
            if let newline {
                carry = Array(chunk[(newline + 1)..<count])
                return blank
            }
        }
        return blank
    }

    /// The index of the last `\n` in `bytes[0..<count]`.
    private static func lastNewline(in bytes: [UInt8], count: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            var i = count - 1
            while i >= 0 {
                if buffer[i] == 0x0A { return i }
                i -= 1
            }
            return nil
        }
    }
}
