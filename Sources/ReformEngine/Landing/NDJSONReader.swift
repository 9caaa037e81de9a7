@_spi(Engine) public import ReformSDK
import ReformSystem

/// Reads newline-delimited JSON (one document per line) in large chunks, in constant memory.
///
/// Lines end with `\n`, optionally preceded by `\r`; the last line needs no newline. Blank lines
/// are skipped. A line that does not parse is returned as a bad record (its `JSONError` located
/// at the line and column in the file) and reading carries on with the next line. A line longer
/// than `JSONLimits.maximumDocumentSize` is reported the same way and skipped without being held
/// in memory, so memory stays bounded by the chunk size plus the longest accepted line.
public struct NDJSONReader: RecordReader, ~Copyable {
    /// The default read size: 1 MiB.
    public static let defaultChunkSize = 1 << 20
    /// The default limits for one line: 16 MiB, 512 levels of nesting.
    public static let defaultLimits = JSONLimits(maximumDepth: 512, maximumDocumentSize: 16 << 20)

    private var file: InputFile
    /// What asks the run reading it to stop; it is checked once a chunk (by default, the process's token).
    public var stop: StopToken {
        get { file.stop }
        set { file.stop = newValue }
    }
    private var parser: JSONParser
    private let maximumCapacity: Int
    /// Where the search for the next newline resumes (a buffer index at or after `file.start`).
    private var scanFrom = 0
    /// The 1-based line number of the line starting at `file.start`.
    private var line = 1
    private var recordIndex = 0
    /// Set while skipping the rest of a line that was too long.
    private var skipping = false
    /// Set while reading through a line longer than the buffer that is blank so far, which is
    /// skipped as a short blank line is: its number and input offset, for the error if content
    /// follows in it.
    private var longBlankLine: (line: Int, offset: Int)?

    /// Opens the file at `path`; `chunkSize` is the read size (tests use tiny ones).
    public init(
        path: String, chunkSize: Int = NDJSONReader.defaultChunkSize, limits: JSONLimits = NDJSONReader.defaultLimits
    ) throws(InputError) {
        self.init(file: try InputFile(path: path, chunkSize: chunkSize), limits: limits)
    }

    /// Reads the lines that start in `range` of its file (Hadoop's split rule); positions keep
    /// the file's own byte offsets, lines count from 1 at the range's first line.
    public init(
        range: InputRange, chunkSize: Int = NDJSONReader.defaultChunkSize, limits: JSONLimits = NDJSONReader.defaultLimits
    ) throws(InputError) {
        self.init(file: try InputFile(range: range, chunkSize: chunkSize), limits: limits)
    }

    /// Reads from an open descriptor such as standard input (0), which is left open; `path` names
    /// it in positions and messages.
    public init(
        descriptor: Int32, path: String = "-", chunkSize: Int = NDJSONReader.defaultChunkSize,
        limits: JSONLimits = NDJSONReader.defaultLimits
    ) {
        self.init(file: InputFile(descriptor: descriptor, path: path, chunkSize: chunkSize), limits: limits)
    }

    /// Reads `file` (a result file opened by ``RecordFileReader``).
    init(file: consuming InputFile, limits: JSONLimits) {
        maximumCapacity = max(file.capacity, limits.maximumDocumentSize + 2)
        self.file = file
        parser = JSONParser(limits: limits)
    }

    /// Called after each read from the file with the bytes read so far (compressed bytes for
    /// `.gz`), for progress reports.
    public var onRefill: ((Int) -> Void)? {
        get { file.onRefill }
        set { file.onRefill = newValue }
    }

    /// The bytes of input held in memory right now (for checks that memory stays bounded).
    public var bufferCapacity: Int { file.capacity }

    /// When set, only these top-level members of object records are built (the others are still
    /// checked); see `JSONParser.parse(_:keeping:)`.
    @_spi(Engine) public var projection: JSONProjection?

    /// Offered each non-blank line's bytes (without the line end) before parsing, with its
    /// 1-based line number and its 0-based position among the input's records; when it returns
    /// `true` the line counts as read and handled, and ``next()`` moves on without parsing it.
    public var lineHandler: ((UnsafeRawBufferPointer, _ line: Int, _ index: Int) -> Bool)?
    /// Offered each non-blank line's bytes (after ``lineHandler``): `.some(record)` lands that
    /// record instead of the line's (marked ``InputRecord/reformed``), `.some(nil)` skips the line
    /// as handled, `nil` parses it as usual.
    var lineReformer: ((UnsafeRawBufferPointer) -> Value??)?
    private var currentStart = 0
    private var currentEnd = 0

    /// The text of the record the last ``next()`` returned, as it stands in the input (valid until
    /// the next call): what a dead-letter entry keeps when the record was built only in part.
    public func currentText() -> String {
        String(decoding: UnsafeBufferPointer(start: file.base + currentStart, count: currentEnd - currentStart), as: UTF8.self)
    }

    /// The next non-blank line as a record, or `nil` at the end of the input.
    public mutating func next() throws(InputError) -> InputRecord? {
        while true {
            let base = file.base
            let lineStart = file.start
            var newline: Int? = nil
            if scanFrom < file.filled,
                let found = memchr(base + scanFrom, 0x0A, file.filled - scanFrom)
            {
                newline = UnsafeMutablePointer<UInt8>(OpaquePointer(found)) - base
            }
            if let newline {
                file.start = newline + 1
                scanFrom = newline + 1
                let lineNumber = line
                line += 1
                if skipping {
                    skipping = false
                    continue
                }
                if let long = longBlankLine {
                    longBlankLine = nil
                    if NDJSONLine.isBlank(base, from: lineStart, to: newline) { continue }
                    return tooLong(at: file.start, line: long.line, offset: long.offset)
                }
                let offer = offerToLineHandler(from: lineStart, to: newline, line: lineNumber)
                if offer == .taken { continue }
                if let record = record(from: lineStart, to: newline, line: lineNumber, offered: offer == .declined) { return record }
                continue
            }
            if skipping {
                file.discardAll()
                scanFrom = file.start
            } else if let long = longBlankLine {
                let blank = NDJSONLine.isBlank(base, from: lineStart, to: file.filled)
                file.discardAll()
                scanFrom = file.start
                if !blank {
                    longBlankLine = nil
                    skipping = true
                    return tooLong(at: file.start, line: long.line, offset: long.offset)
                }
            } else if file.atEnd {
                guard lineStart < file.filled else { return nil }
                file.start = file.filled
                scanFrom = file.filled
                let offer = offerToLineHandler(from: lineStart, to: file.filled, line: line)
                if offer == .taken { continue }
                if let record = record(from: lineStart, to: file.filled, line: line, offered: offer == .declined) { return record }
                continue
            } else if file.isFull(maximumCapacity: maximumCapacity) {
                // A line longer than the limit: report it, then skip to its end without keeping
                // it; a blank one is read through, reported only if content follows.
                if NDJSONLine.isBlank(base, from: lineStart, to: file.filled) {
                    longBlankLine = (line, file.inputOffset(lineStart))
                    file.discardAll()
                    scanFrom = file.start
                } else {
                    // A tagged line is one manager's: only its reader (the first one, for a line
                    // with no or an unknown tag) reports it, once (reliability audit L2).
                    let others: Bool
                    if let lineTags,
                        case .skip = lineTags.verdict(on: UnsafeRawBufferPointer(start: base + lineStart, count: file.filled - lineStart))
                    {
                        others = true
                    } else {
                        others = false
                    }
                    let record = others ? nil : tooLong(at: lineStart, line: line)
                    skipping = true
                    file.discardAll()
                    scanFrom = file.start
                    if let record { return record }
                }
            }
            if file.atEnd {
                return nil
            }
            let shift = try file.refill(maximumCapacity: maximumCapacity)
            scanFrom -= shift
        }
    }

    /// For a tagged input (`MANAGER<TAB>JSON` lines), which lines this reader takes; see ``LineTags``.
    var lineTags: LineTags?
    /// Whether the line the last ``next()`` returned was rejected for its tag (``lineTags``).
    private(set) var lastLineUntagged = false

    /// What ``offerToLineHandler(from:to:line:)`` did with a line.
    private enum Offer {
        /// The line was blank, or the handler took it: it is done.
        case taken
        /// The handler was offered the line and left it.
        case declined
        /// It was not offered (no handler, a tagged input, a line past the limit).
        case notOffered
    }

    /// Offers the line in buffer bytes `start..<end` to ``lineHandler`` as ``record(from:to:line:offered:)``
    /// would, without building a record: a record's layout is known only at run time (its payload's
    /// error is the SDK's resilient `JSONError`), so a function that may build one looks it up each
    /// time it is called, and the fast path's lines never need one.
    private mutating func offerToLineHandler(from lineStart: Int, to end: Int, line lineNumber: Int) -> Offer {
        guard lineTags == nil, let lineHandler else { return .notOffered }
        guard let contentEnd = NDJSONLine.contentEnd(file.base, from: lineStart, to: end) else { return .taken }  // blank
        guard contentEnd - lineStart <= parser.limits.maximumDocumentSize else { return .notOffered }
        currentStart = lineStart
        currentEnd = contentEnd
        guard lineHandler(UnsafeRawBufferPointer(start: file.base + lineStart, count: contentEnd - lineStart), lineNumber, recordIndex)
        else { return .declined }
        recordIndex += 1
        return .taken
    }

    /// Parses the line in buffer bytes `start..<end` (without its `\n`); `nil` for a blank line.
    /// `offered`: ``lineHandler`` has been offered the line already, and left it.
    private mutating func record(from lineStart: Int, to end: Int, line lineNumber: Int, offered: Bool) -> InputRecord? {
        let base = file.base
        guard let end = NDJSONLine.contentEnd(base, from: lineStart, to: end) else { return nil }
        var start = lineStart
        if let lineTags {
            lastLineUntagged = false
            switch lineTags.verdict(on: UnsafeRawBufferPointer(start: base + start, count: end - start)) {
            case .skip: return nil
            case .take(let dropping): start += dropping
            case .stray(let reason):
                lastLineUntagged = true
                let position = RecordPosition(path: file.path, line: lineNumber, offset: file.inputOffset(start), index: recordIndex)
                recordIndex += 1
                currentStart = start
                currentEnd = end
                let error = JSONError(code: .syntax, message: reason, line: lineNumber, column: 1, offset: position.offset)
                return InputRecord(position: position, payload: .failure(error))
            }
        }
        let tagWidth = start - lineStart
        // The buffer holds short files whole, so the limit is checked on every line, before any
        // fast path sees it, not only when a line outgrows the buffer.
        if end - start > parser.limits.maximumDocumentSize { return tooLong(at: start, line: lineNumber) }
        let position = RecordPosition(path: file.path, line: lineNumber, offset: file.inputOffset(lineStart), index: recordIndex)
        recordIndex += 1
        let bytes = UnsafeRawBufferPointer(start: base + start, count: end - start)
        currentStart = start
        currentEnd = end
        if !offered, let lineHandler, lineHandler(bytes, lineNumber, position.index) { return nil }
        if let lineReformer, let outcome = lineReformer(bytes) {
            guard let value = outcome else { return nil }
            var record = InputRecord(position: position, payload: .success(value))
            record.reformed = true
            return record
        }
        do {
            if let projection {
                return InputRecord(position: position, payload: .success(try parser.parse(bytes, keeping: projection)))
            }
            return InputRecord(position: position, payload: .success(try parser.parse(bytes)))
        } catch {
            let located = error.relocated(
                documentLine: lineNumber, documentColumn: 1 + tagWidth, documentOffset: position.offset + tagWidth)
            return InputRecord(position: position, payload: .failure(located))
        }
    }

    /// The error for a line at buffer byte `start` longer than the limit; its text is not kept.
    /// `offset`: the line's input offset when it is not at `start` any more (read past already).
    private mutating func tooLong(at start: Int, line: Int, offset: Int? = nil) -> InputRecord {
        currentStart = start
        currentEnd = start
        let position = RecordPosition(path: file.path, line: line, offset: offset ?? file.inputOffset(start), index: recordIndex)
        recordIndex += 1
        let limit = parser.limits.maximumDocumentSize
        let error = JSONError(
            code: .tooLarge, message: "line is longer than the limit of \(limit) bytes (raise it with --max-record-bytes)", line: line,
            column: 1,
            offset: position.offset)
        return InputRecord(position: position, payload: .failure(error))
    }
}
