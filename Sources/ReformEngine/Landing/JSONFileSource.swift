@_spi(Engine) import ReformSDK

/// Records from an NDJSON input (or `-`, standard input), streamed in constant memory.
///
/// A line that is not valid JSON lands as a bad record (dead-lettered with its line, the parse
/// error and its text); the rest of the file is still read. With a projection, only the members
/// the chain reads are built, and ``originalRecord()`` re-reads a rejected record in full.
final class NDJSONSource: LineSource {
    let inputName: String
    private let manager: String
    private var reader: NDJSONReader

    /// What the lines go through before they land, when the run's plan found a fast path.
    let linePath: (any LineFastPath)?
    private(set) var lastRecordStages: Int?
    /// The byte range read, when only part of the file is (dead letters then name byte offsets).
    private var range: InputRange?
    /// Where the record landed last starts in the file, when a byte range is read.
    private(set) var rangePosition: RangePosition?

    init(
        path: String, manager: String, projection: JSONProjection?, fastPath: (any LineFastPath)? = nil,
        limits: JSONLimits = NDJSONReader.defaultLimits, tags: LineTags? = nil, stop: StopToken = .process
    ) throws(SourceError) {
        linePath = fastPath
        self.manager = manager
        if path == "-" {
            inputName = "<stdin>"
            reader = NDJSONReader(descriptor: 0, path: "<stdin>", limits: limits)
        } else if let range = InputRange.parse(path), !FilePaths.isFile(path) {
            inputName = range.path
            self.range = range
            do { reader = try NDJSONReader(range: range, limits: limits) } catch {
                throw SourceError(manager: manager, message: error.description)
            }
        } else {
            inputName = path
            do { reader = try NDJSONReader(path: path, limits: limits) } catch {
                throw SourceError(manager: manager, message: error.description)
            }
        }
        reader.projection = projection
        reader.lineTags = tags
        reader.stop = stop
        fastPath?.attach(to: &reader, input: inputName)
    }

    func observeBytes(_ handler: @escaping (Int) -> Void) {
        reader.onRefill = handler
    }

    func next() throws(SourceError) -> Landed? {
        do {
            return try reader.next().map { record in
                var landed = record.landed(text: { self.reader.currentText() })
                lastRecordStages = record.reformed ? linePath?.reformedStages : nil
                if reader.lastLineUntagged, case .bad(let line, _, let text, let at) = landed, case .failure(let error) = record.payload {
                    landed = .bad(line: line, error: RecordError(code: "untagged", message: error.message), text: text, at: at)
                }
                // In a byte range, lines count from the range's start: the file's offset says where.
                if let range {
                    rangePosition = RangePosition(range: range, line: record.position.line, offset: record.position.offset)
                    if case .bad(let line, let error, let text, _) = landed {
                        return .bad(line: line, error: error, text: text, at: "\(range.path)@\(record.position.offset)")
                    }
                }
                return landed
            }
        } catch {
            throw SourceError(manager: manager, message: error.description)
        }
    }

    func originalRecord() -> Value? {
        guard reader.projection != nil else { return nil }
        return try? JSON.parse(reader.currentText())
    }
}

/// Records from a `.json` input: the elements of a top-level array, streamed, or one object.
final class JSONArraySource: RecordSource {
    let inputName: String
    private let manager: String
    private var reader: JSONArrayReader

    init(path: String, manager: String, limits: JSONLimits = NDJSONReader.defaultLimits, stop: StopToken = .process) throws(SourceError) {
        self.manager = manager
        inputName = path
        do { reader = try JSONArrayReader(path: path, limits: limits) } catch {
            throw SourceError(manager: manager, message: error.description)
        }
        reader.stop = stop
    }

    func observeBytes(_ handler: @escaping (Int) -> Void) {
        reader.onRefill = handler
    }

    func next() throws(SourceError) -> Landed? {
        do { return try reader.next().map { $0.landed(text: { nil }) } } catch {
            throw SourceError(manager: manager, message: error.description)
        }
    }
}

extension InputRecord {
    /// The record as a landing: its value, or a bad record with the parse error and `text()`.
    func landed(text: () -> String?) -> Landed {
        switch payload {
        case .success(let value): .record(value, line: position.line, page: 0)
        case .failure(let error): .bad(line: position.line, error: error.recordError, text: text())
        }
    }
}

extension JSONError {
    /// This parse error as the reason a record was rejected.
    var recordError: RecordError {
        RecordError(code: code == .tooLarge ? "too-large" : "invalid-json", message: "column \(column): \(message)")
    }
}
