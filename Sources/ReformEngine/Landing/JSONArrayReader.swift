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
        /// Inside the objects on the way to the records (`records:`): the key `path[level]` is
        /// sought among the members of the object at that level.
        case descend(level: Int)
        /// After the records: `levels` objects around them are still open, their other members
        /// skipped up to their closing braces.
        case ascend(levels: Int)
        case done
    }

    /// The keys from the top-level object down to the records (a `records:` path), empty when
    /// the top-level value holds them.
    private var path: [String] = []
    /// The state once the records' array has closed.
    private var afterArray: State { path.isEmpty ? .trailing(afterArray: true) : .ascend(levels: path.count) }

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

    /// Reads `file` (a result file opened by ``RecordFileReader``): the records are the array
    /// (or the value) at `path`, keys from the top-level object down (empty: the top-level value).
    init(file: consuming InputFile, limits: JSONLimits, path: [String]) {
        self.init(file: file, limits: limits)
        self.path = path
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
                if !path.isEmpty {
                    guard file.base[file.start] == UInt8(ascii: "{") else {
                        state = .done
                        throw damage(
                            "expected an object holding '\(path.joined(separator: "."))' (the manager's 'records:')", at: file.start)
                    }
                    advance(to: file.start + 1)
                    state = .descend(level: 0)
                } else if file.base[file.start] == UInt8(ascii: "[") {
                    advance(to: file.start + 1)
                    state = .beforeElement(afterComma: false)
                } else {
                    state = .single
                }
            case .descend(let level):
                if let record = try descend(level) { return record }
            case .ascend(let levels):
                try ascend(levels)
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
                    state = afterArray
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

    // MARK: Down to the records and back (`records:`)

    /// Seeks `path[level]` among the members of the object just opened; at the last key, starts
    /// on its value: an array's elements, or the value as the one record (`null`: none).
    private mutating func descend(_ level: Int) throws(InputError) -> InputRecord? {
        let wanted = path[level]
        var first = true
        while true {
            guard try skipWhitespace() else { throw damage("the object never closes (is the file cut short?)", at: file.start) }
            let byte = file.base[file.start]
            if byte == UInt8(ascii: "}") {
                state = .done
                throw damage("the file has no '\(path.joined(separator: "."))' (the manager's 'records:')", at: file.start)
            }
            if !first {
                guard byte == UInt8(ascii: ",") else { throw damage("expected ',' or '}' after an object member", at: file.start) }
                advance(to: file.start + 1)
                guard try skipWhitespace() else { throw damage("the object never closes (is the file cut short?)", at: file.start) }
            }
            first = false
            let key = try readKey()
            try expect(UInt8(ascii: ":"), "':' after an object key")
            guard key == wanted else {
                try skipValue()
                continue
            }
            guard try skipWhitespace() else { throw damage("expected a value after '\(key)':", at: file.start) }
            let start = file.base[file.start]
            if level + 1 < path.count {
                guard start == UInt8(ascii: "{") else {
                    state = .done
                    throw damage("the file has no '\(path.joined(separator: "."))' (the manager's 'records:')", at: file.start)
                }
                advance(to: file.start + 1)
                state = .descend(level: level + 1)
                return nil
            }
            if start == UInt8(ascii: "[") {
                advance(to: file.start + 1)
                state = .beforeElement(afterComma: false)
                return nil
            }
            // Not an array: the value is the one record (`null`: no record).
            let isNull = start == UInt8(ascii: "n")
            let record = try readValue()
            state = .ascend(levels: path.count)
            if isNull, case .success(.null) = record.payload { return nil }
            return record
        }
    }

    /// Skips the other members of the `levels` objects still open around the records, up to the
    /// top-level object's closing brace.
    private mutating func ascend(_ levels: Int) throws(InputError) {
        guard levels > 0 else {
            state = .trailing(afterArray: false)
            return
        }
        guard try skipWhitespace() else { throw damage("the object never closes (is the file cut short?)", at: file.start) }
        let byte = file.base[file.start]
        if byte == UInt8(ascii: "}") {
            advance(to: file.start + 1)
            state = .ascend(levels: levels - 1)
            return
        }
        guard byte == UInt8(ascii: ",") else { throw damage("expected ',' or '}' after an object member", at: file.start) }
        advance(to: file.start + 1)
        guard try skipWhitespace() else { throw damage("the object never closes (is the file cut short?)", at: file.start) }
        _ = try readKey()
        try expect(UInt8(ascii: ":"), "':' after an object key")
        try skipValue()
    }

    /// Skips white space and the byte `byte`, which must be next.
    private mutating func expect(_ byte: UInt8, _ what: String) throws(InputError) {
        guard try skipWhitespace(), file.base[file.start] == byte else {
            state = .done
            throw damage("expected \(what)", at: file.start)
        }
        advance(to: file.start + 1)
    }

    /// The object key (a JSON string) at `file.start`, read past.
    private mutating func readKey() throws(InputError) -> String {
        guard file.base[file.start] == UInt8(ascii: "\"") else {
            state = .done
            throw damage("expected an object key (a string in double quotes)", at: file.start)
        }
        let record = try readValue()
        guard case .success(.string(let key)) = record.payload else {
            state = .done
            throw damage("an object key does not read as a string", at: file.start)
        }
        return key
    }

    /// Skips the value at the next non-blank byte, without holding it: a string to its closing
    /// quote, an array or object to its closing bracket, anything else to the `,`, `}` or `]` after.
    private mutating func skipValue() throws(InputError) {
        guard try skipWhitespace() else { throw damage("expected a value, found end of input", at: file.start) }
        _ = try scanValue(keeping: false)
    }

    /// The value at `file.start`, parsed, as a record (its failure located), read past.
    private mutating func readValue() throws(InputError) -> InputRecord {
        let startOffset = file.inputOffset(file.start)
        let startLine = line
        let startColumn = startOffset - lineStartOffset + 1
        let position = RecordPosition(path: file.path, line: startLine, offset: startOffset, index: recordIndex)
        guard let end = try scanValue(keeping: true) else {
            let error = JSONError(
                code: .tooLarge, message: "value is larger than the limit of \(parser.limits.maximumDocumentSize) bytes", line: startLine,
                column: startColumn, offset: startOffset)
            return InputRecord(position: position, payload: .failure(error))
        }
        let bytes = UnsafeRawBufferPointer(start: file.base + file.start, count: end - file.start)
        defer { advance(to: end) }
        do { return InputRecord(position: position, payload: .success(try parser.parse(bytes))) } catch {
            let located = error.relocated(documentLine: startLine, documentColumn: startColumn, documentOffset: startOffset)
            return InputRecord(position: position, payload: .failure(located))
        }
    }

    /// Finds the end of the value starting at `file.start` (a buffer index one past it). Keeping,
    /// the value's bytes stay from `file.start` (`nil`: larger than a record may be, read past);
    /// skipping, they are let go as the scan goes, and the value is read past.
    private mutating func scanValue(keeping: Bool) throws(InputError) -> Int? {
        let opener = file.base[file.start]
        let container = opener == UInt8(ascii: "{") || opener == UInt8(ascii: "[")
        let string = opener == UInt8(ascii: "\"")
        var depth = 0
        var strings = JSONStringScan()
        var i = file.start
        var dropped = false
        while true {
            let base = file.base
            while i < file.filled {
                let c = base[i]
                let step = strings.take(c)
                if step == .closedString && string { return finish(i + 1) }
                guard step == .outside else {
                    i += 1
                    continue
                }
                if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                    depth += 1
                } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                    if !container { return finish(i) }
                    depth -= 1
                    if depth == 0 { return finish(i + 1) }
                } else if !container && (c == UInt8(ascii: ",") || c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09) {
                    return finish(i)
                }
                i += 1
            }
            if !keeping {
                // Nothing of a skipped value is kept: let the buffer go as the scan goes.
                advance(to: i)
            }
            let shift = file.start
            let progressed = try refill()
            i -= shift
            if !progressed {
                if file.atEnd {
                    if !container && !string { return finish(i) }
                    state = .done
                    throw damage("a value never closes (is the file cut short?)", at: i)
                }
                // Too large to keep: read on to its end, holding nothing.
                dropped = true
                countLines(upTo: i)
                file.discardAll()
                i = file.start
            }
        }
        func finish(_ end: Int) -> Int? {
            if !keeping || dropped {
                advance(to: end)
                return dropped && keeping ? nil : end
            }
            return end
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
        var strings = JSONStringScan()
        var oversized = false
        var i = file.start
        var end: Int? = nil
        var closesArray = false
        scan: while true {
            let base = file.base
            while i < file.filled {
                let c = base[i]
                let step = strings.take(c)
                if step == .closedString && single && depth == 0 {
                    end = i + 1
                    break scan
                }
                guard step == .outside else {
                    i += 1
                    continue
                }
                if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
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
                state = closesArray ? afterArray : .beforeElement(afterComma: true)
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

/// Where a byte-at-a-time scan of JSON text stands with strings: inside one (after a backslash,
/// or not) or outside, where brackets and separators mean structure.
private struct JSONStringScan {
    private var inString = false
    private var escaped = false

    /// What a byte was to the scan.
    enum Step {
        /// Inside a string (its opening quote included): no structure.
        case inString
        /// The quote that closes a string.
        case closedString
        /// Outside any string: structure to look at.
        case outside
    }

    /// Takes the next byte.
    mutating func take(_ c: UInt8) -> Step {
        if inString {
            if escaped {
                escaped = false
            } else if c == UInt8(ascii: "\\") {
                escaped = true
            } else if c == UInt8(ascii: "\"") {
                inString = false
                return .closedString
            }
            return .inString
        }
        if c == UInt8(ascii: "\"") {
            inString = true
            return .inString
        }
        return .outside
    }
}
