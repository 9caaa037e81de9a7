import ReformSystem

/// A plain regular file whose batches the workers of a parallel landing read themselves, each a
/// byte range with `pread`, instead of the landing thread reading every byte and handing it over.
///
/// The landing thread then only cuts the file into ranges (``RangeBatcher``). Reading in the
/// landing thread cost it about 40% of its time on 2 cores (the copy out of the page cache, into
/// arrays the worker then read from the other core's cache), time the workers waited for;
/// a worker reads its range into its own array, warm in its core's cache from the batch before.
///
/// A range owns the lines that start in it, as a task's byte range does (``InputRange``): a line
/// that starts before the range is the previous range's, and the last line that starts in it is
/// read to its end past the range. A line longer than the limit is not held: it is read past,
/// as ``LineBatcher`` and the streaming reader skip it, and reported as too long unless it is
/// blank (``NDJSONLine/LongLine``).
final class RangedInput: Sendable {
    /// The path as the user gave it, for errors.
    let path: String
    private let descriptor: Int32
    /// What asks the run to stop, checked at every read.
    let stop: StopToken

    /// Opens `path` for ranged reading when it is a regular file that is not gzip-compressed
    /// (a `.gz` name); `nil` for anything else (standard input, a pipe, a device, `.gz`), which
    /// the landing thread reads in turn.
    static func open(path: String, stop: StopToken = .process) throws(InputError) -> RangedInput? {
        guard path != "-", !path.hasSuffix(".gz") else { return nil }
        // Looked at before it is opened: opening a FIFO waits for its writer, and closing it again
        // to read it in turn could make the writer fail.
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let descriptor = ReformSystem.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw InputError(path: path, message: "cannot open the input: \(InputFile.systemError())")
        }
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        return RangedInput(path: path, descriptor: descriptor, stop: stop)
    }

    private init(path: String, descriptor: Int32, stop: StopToken) {
        self.path = path
        self.descriptor = descriptor
        self.stop = stop
    }

    deinit { close(descriptor) }

    /// Whether the byte at `offset` is a newline: whether a line ends there.
    func endsLine(at offset: Int) throws(InputError) -> Bool {
        var byte: [UInt8] = [0]
        return try read(count: 1, at: offset, into: &byte, at: 0) == 1 && byte[0] == 0x0A
    }

    /// The file's size now (it may grow while it is read).
    func size() throws(InputError) -> Int {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw InputError(path: path, message: "cannot read the input's size: \(InputFile.systemError())")
        }
        return Int(status.st_size)
    }

    /// What ``read(from:to:maximumLine:into:)`` found.
    struct Lines {
        /// Where the range's whole lines lie in the buffer (each ends in a newline but perhaps
        /// the file's last).
        var bytes: Range<Int>
        /// The last line that starts in the range when it was longer than the limit: it follows
        /// those in ``bytes`` and was read past, not kept.
        var longLastLine: NDJSONLine.LongLine? = nil
    }

    /// Reads the lines that start in `start..<end` into `buffer` (grown when needed, else reused).
    /// `maximumLine` bounds a line's bytes before its newline: a longer one is skipped.
    func read(from start: Int, to end: Int, maximumLine: Int, into buffer: inout [UInt8]) throws(InputError) -> Lines {
        // The byte before the range says whether a line starts at its first byte.
        let from = max(start - 1, 0)
        let wanted = end - from
        // A buffer grown for one long line is not kept for the batches after it.
        if buffer.count < wanted || buffer.count > 4 * wanted + (1 << 20) {
            buffer = [UInt8](repeating: 0, count: wanted + wanted / 4)
        }
        let count = try read(count: wanted, at: from, into: &buffer, at: 0)
        var first = 0
        if start > 0 {
            // The first line that starts in the range follows the first newline from `start - 1`.
            guard let newline = Self.firstNewline(in: buffer, from: 0, to: count) else {
                return Lines(bytes: 0..<0)  // inside one line, or past the end
            }
            first = newline + 1
        }
        // At the end of the file, or the range ends at a line's end: nothing more to read.
        guard count == wanted, first < count, buffer[count - 1] != 0x0A else {
            return Lines(bytes: min(first, count)..<count)
        }
        let lastStart = Self.lastNewline(in: buffer, from: first, to: count).map { $0 + 1 } ?? first
        return try readOn(line: lastStart, filled: count, fileOffset: from + count, lines: first, maximumLine: maximumLine, into: &buffer)
    }

    /// Reads the rest of the line that starts at `buffer[line]` and runs on past `filled`, the
    /// bytes read so far (the file's bytes from `fileOffset` on come next).
    private func readOn(
        line: Int, filled: Int, fileOffset: Int, lines first: Int, maximumLine: Int, into buffer: inout [UInt8]
    ) throws(InputError) -> Lines {
        // Small reads first: the rest of a line is a few hundred bytes more often than not.
        var step = 1 << 12
        var filled = filled
        var offset = fileOffset  // of buffer[filled]
        while filled - line <= maximumLine {
            if buffer.count < filled + step { buffer.append(contentsOf: repeatElement(0, count: max(step, buffer.count / 2))) }
            let n = try read(count: step, at: offset, into: &buffer, at: filled)
            if n == 0 { return Lines(bytes: first..<filled) }  // the file's last line
            if let newline = Self.firstNewline(in: buffer, from: filled, to: filled + n) {
                guard newline - line > maximumLine else { return Lines(bytes: first..<(newline + 1)) }
                let kind: NDJSONLine.LongLine = NDJSONLine.isBlank(buffer, line..<newline) ? .blank : .tooLong
                return Lines(bytes: first..<line, longLastLine: kind)
            }
            filled += n
            offset += n
            step = min(step * 2, 1 << 20)
        }
        // Too long to hold: read on to its newline without keeping it, watching whether it is blank.
        var blank = NDJSONLine.isBlank(buffer, line..<filled)
        let room = buffer.count - line
        while true {
            let n = try read(count: room, at: offset, into: &buffer, at: line)
            if n == 0 { break }
            let newline = Self.firstNewline(in: buffer, from: line, to: line + n)
            if blank { blank = NDJSONLine.isBlank(buffer, line..<(newline ?? line + n)) }
            if newline != nil { break }
            offset += n
        }
        return Lines(bytes: first..<line, longLastLine: blank ? .blank : .tooLong)
    }

    /// Reads up to `count` bytes at file offset `offset` into `buffer[index...]`, fewer only at the
    /// end of the file; returns how many.
    private func read(count: Int, at offset: Int, into buffer: inout [UInt8], at index: Int) throws(InputError) -> Int {
        // Checked at every read, as the reading paths check once a chunk: a worker reading on
        // through a line of gigabytes still stops in time for Ctrl-C.
        if let reason = stop.reason {
            throw InputError(path: path, message: reason)
        }
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { bytes in
                pread(descriptor, bytes.baseAddress.map { $0 + index + done }, count - done, off_t(offset + done))
            }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(path: path, message: "read failed: \(InputFile.systemError())")
            }
            done += n
        }
        return done
    }

    private static func firstNewline(in buffer: [UInt8], from start: Int, to end: Int) -> Int? {
        guard start < end else { return nil }
        return buffer.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, let found = memchr(base + start, 0x0A, end - start) else { return nil }
            return UnsafeRawPointer(found) - base
        }
    }

    private static func lastNewline(in buffer: [UInt8], from start: Int, to end: Int) -> Int? {
        // A backward scan over the range's last line (glibc's `memrchr` is not in Swift's Glibc).
        var i = end - 1
        while i >= start {
            if buffer[i] == 0x0A { return i }
            i -= 1
        }
        return nil
    }
}
