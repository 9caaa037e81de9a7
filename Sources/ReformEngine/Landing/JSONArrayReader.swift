public import ReformSDK

/// Reads a `.json` file whose top-level value is an array, one element at a time, in constant
/// memory; any other top-level value (a single object, say) is read as one record.
///
/// Elements are found by a light scan that tracks strings and nesting, then each is parsed on its
/// own, so a malformed element becomes a bad record (located at its line and column in the file)
/// and the reader carries on with the next. An element larger than
/// `JSONLimits.maximumDocumentSize` is reported and skipped without being held in memory. A file
/// that is not one JSON document is damaged as a whole, and ``next()`` throws an ``InputError`` at
/// the line and column: an empty file, text after the array or value (a second document: several
/// belong in NDJSON), or an array that never closes (a file cut short).
public struct JSONArrayReader: RecordReader, ~Copyable {
    private enum State {
        /// Before the first non-blank byte of the input.
        case start
        /// After `[` or `,`: the next element starts at the next non-blank byte.
        case beforeElement(afterComma: Bool)
        /// The top-level value is not an array: it is the only record.
        case single
        /// After the closing `]` (or the single value): only whitespace may follow.
        case trailing(afterArray: Bool)
        case done
    }

    private var file: InputFile
    /// What asks the run reading it to stop; it is checked once a chunk (by default, the process's token).
    public var stop: StopToken {
        get { file.stop }
        set { file.stop = newValue }
    }
    private var parser: JSONParser
    private let maximumCapacity: Int
    private var state = State.start
    /// Line bookkeeping for bytes before `scanned`: the current line number and where it starts.
    private var line = 1
    private var lineStartOffset = 0
    /// The buffer index up to which bytes have been scanned (newlines counted).
    private var scanned = 0
    private var recordIndex = 0

    /// Opens the file at `path`; `chunkSize` is the read size (tests use tiny ones).
    public init(
        path: String, chunkSize: Int = NDJSONReader.defaultChunkSize, limits: JSONLimits = NDJSONReader.defaultLimits
    ) throws(InputError) {
        self.init(file: try InputFile(path: path, chunkSize: chunkSize), limits: limits)
    }

    /// Reads from an open descriptor such as standard input (0), which is left open.
    public init(
        descriptor: Int32, path: String = "-", chunkSize: Int = NDJSONReader.defaultChunkSize,
        limits: JSONLimits = NDJSONReader.defaultLimits
    ) {
        self.init(file: InputFile(descriptor: descriptor, path: path, chunkSize: chunkSize), limits: limits)
    }

    /// Reads `file` (a result file opened by ``RecordFileReader``).
    init(file: consuming InputFile, limits: JSONLimits) {
        maximumCapacity = max(file.capacity, limits.maximumDocumentSize + 1)
        self.file = file
        parser = JSONParser(limits: limits)
    }

    /// The bytes of input held in memory right now (for checks that memory stays bounded).
    public var bufferCapacity: Int { file.capacity }

    /// Called after each read from the file with the bytes read so far (compressed bytes for
    /// `.gz`), for progress reports.
    public var onRefill: ((Int) -> Void)? {
        get { file.onRefill }
        set { file.onRefill = newValue }
    }

    /// The next element (or the single top-level value) as a record, or `nil` at the end; throws
    /// when the file cannot be read or is not one JSON document.
    public mutating func next() throws(InputError) -> InputRecord? {
        while true {
            switch state {
            case .done:
                return nil
            case .start:
                guard try skipWhitespace() else {
                    state = .done
                    throw damage(
                        "the file is empty; a .json input holds one JSON document (an array of records, or one record)", at: file.start)
                }
                if file.base[file.start] == UInt8(ascii: "[") {
                    advance(to: file.start + 1)
                    state = .beforeElement(afterComma: false)
                } else {
                    state = .single
                }
            case .single:
                state = .done
                return try readElement(single: true)
            case .beforeElement(let afterComma):
                guard try skipWhitespace() else {
                    state = .done
                    throw damage("expected a value or ']' in the array, found end of input" + Self.neverCloses, at: file.start)
                }
                if !afterComma && file.base[file.start] == UInt8(ascii: "]") {
                    advance(to: file.start + 1)
                    state = .trailing(afterArray: true)
                    continue
                }
                return try readElement(single: false)
            case .trailing(let afterArray):
                state = .done
                guard try skipWhitespace() else { return nil }
                throw damage(
                    "text after the JSON \(afterArray ? "array" : "value"); a .json input holds one JSON document: "
                        + "put several, one a line, in a .ndjson or .jsonl file", at: file.start)
            }
        }
    }

    /// Said of an array whose end the file does not reach.
    private static let neverCloses = " (the array never closes: is the file cut short?)"

    // MARK: Scanning

    /// Moves `file.start` to `index`, counting the lines crossed.
    private mutating func advance(to index: Int) {
        countLines(upTo: index)
        file.start = index
    }

    private mutating func countLines(upTo index: Int) {
        let base = file.base
        var i = max(scanned, file.start)
        while i < index {
            if base[i] == 0x0A {
                line += 1
                lineStartOffset = file.inputOffset(i + 1)
            }
            i += 1
        }
        scanned = max(scanned, index)
    }

    /// Refills, keeping `scanned` on the same byte; returns whether new bytes arrived.
    private mutating func refill() throws(InputError) -> Bool {
        let before = file.filled - file.start
        let shift = try file.refill(maximumCapacity: maximumCapacity)
        scanned -= shift
        return file.filled - file.start > before
    }

    /// Skips whitespace; returns whether a non-blank byte is available at `file.start`.
    private mutating func skipWhitespace() throws(InputError) -> Bool {
        while true {
            var i = file.start
            while i < file.filled {
                let c = file.base[i]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else {
                    advance(to: i)
                    return true
                }
                i += 1
            }
            advance(to: i)
            guard try refill() else { return false }
        }
    }

    /// Reads the element starting at `file.start` up to the `,` or `]` that ends it (or, for a
    /// single value, up to its closing bracket or quote, or the blank after a number or literal)
    /// and parses it.
    private mutating func readElement(single: Bool) throws(InputError) -> InputRecord? {
        let startOffset = file.inputOffset(file.start)
        let startLine = line
        let startColumn = startOffset - lineStartOffset + 1
        let position = RecordPosition(path: file.path, line: startLine, offset: startOffset, index: recordIndex)
        recordIndex += 1
        var depth = 0
        var inString = false
        var escaped = false
        var oversized = false
        var i = file.start
        var end: Int? = nil
        var closesArray = false
        scan: while true {
            let base = file.base
            while i < file.filled {
                let c = base[i]
                if inString {
                    if escaped {
                        escaped = false
                    } else if c == UInt8(ascii: "\\") {
                        escaped = true
                    } else if c == UInt8(ascii: "\"") {
                        inString = false
                        if single && depth == 0 {
                            end = i + 1
                            break scan
                        }
                    }
                } else if c == UInt8(ascii: "\"") {
                    inString = true
                } else if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                    depth += 1
                } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                    if depth == 0 && !single {
                        end = i
                        closesArray = c == UInt8(ascii: "]")
                        break scan
                    }
                    depth -= 1
                    if single && depth == 0 {
                        end = i + 1
                        break scan
                    }
                } else if c == UInt8(ascii: ",") && depth == 0 && !single {
                    end = i
                    break scan
                } else if single && depth == 0 && (c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09) {
                    end = i
                    break scan
                }
                i += 1
            }
            let shift = file.start
            let progressed = try refill()
            i -= shift
            if !progressed {
                if file.atEnd { break scan }
                // Too large to keep: drop what we have and go on scanning for the element's end.
                oversized = true
                countLines(upTo: i)
                file.discardAll()
            }
        }
        let elementEnd = end ?? file.filled
        defer {
            // Consume the element and the separator after it.
            if let end, single {
                advance(to: end)
                state = .trailing(afterArray: false)
            } else if let end {
                advance(to: end + 1)
                state = closesArray ? .trailing(afterArray: true) : .beforeElement(afterComma: true)
            } else {
                advance(to: file.filled)
                state = .done
            }
        }
        if end == nil && !single {
            throw damage("expected ',' or ']' after an array element, found end of input" + Self.neverCloses, at: elementEnd)
        }
        if oversized || elementEnd - file.start > parser.limits.maximumDocumentSize {
            let limit = parser.limits.maximumDocumentSize
            let error = JSONError(
                code: .tooLarge, message: "record is larger than the limit of \(limit) bytes (raise it with --max-record-bytes)",
                line: startLine,
                column: startColumn, offset: startOffset)
            return InputRecord(position: position, payload: .failure(error))
        }
        if elementEnd == file.start, let end {
            let found = file.base[end] == UInt8(ascii: ",") ? "','" : "']'"
            return InputRecord(
                position: position, payload: .failure(locatedError("expected a value, found \(found)", at: end)))
        }
        let bytes = UnsafeRawBufferPointer(start: file.base + file.start, count: elementEnd - file.start)
        do {
            let value = try parser.parse(bytes)
            return InputRecord(position: position, payload: .success(value))
        } catch {
            let located = error.relocated(
                documentLine: startLine, documentColumn: startColumn, documentOffset: startOffset)
            return InputRecord(position: position, payload: .failure(located))
        }
    }

    /// A syntax error at buffer index `index`.
    private mutating func locatedError(_ message: String, at index: Int) -> JSONError {
        countLines(upTo: index)
        let offset = file.inputOffset(index)
        return JSONError(
            code: .syntax, message: message, line: line, column: offset - lineStartOffset + 1, offset: offset)
    }

    /// The file is not one JSON document: `message` at buffer index `index`.
    private mutating func damage(_ message: String, at index: Int) -> InputError {
        let error = locatedError(message, at: index)
        return InputError(path: file.path, message: message, line: error.line, column: error.column)
    }
}
