public import ReformSDK

extension RecordFile {
    /// A reader of the records, from the start of the file; throws when the file cannot be read.
    public func reader() throws(SourceError) -> RecordFileReader {
        try RecordFileReader(self)
    }
}

/// Reads a ``RecordFile``'s records one at a time.
public final class RecordFileReader {
    private let file: RecordFile
    private var lines: NDJSONPull?
    private var array: ArrayPull?
    private var rows: CSVReader?
    private var elements: XMLRecordReader?
    /// The XML file's bytes, and why they could not be read when they could not.
    private var xmlInput: InputPull?
    /// Records read so far (bad ones not counted).
    public private(set) var count = 0

    init(_ file: RecordFile) throws(SourceError) {
        self.file = file
        let input: InputFile
        do { input = try file.file.input(label: file.source, chunkSize: file.chunkSize) } catch {
            throw SourceError(manager: file.manager, message: error.description)
        }
        switch file.format {
        case .ndjson: lines = NDJSONPull(NDJSONReader(file: input, limits: NDJSONReader.defaultLimits))
        case .json:
            array = ArrayPull(JSONArrayReader(file: input, limits: NDJSONReader.defaultLimits, path: file.recordsPath?.keys ?? []))
        case .csv, .tsv:
            let delimiter = file.csv?.delimiter ?? UInt8(ascii: file.format == .csv ? "," : "\t")
            rows = CSVReader(file: input, delimiter: delimiter, columns: file.csv?.columns, chunkSize: file.chunkSize)
        case .xml:
            let bytes = InputPull(input)
            xmlInput = bytes
            do {
                elements = try XMLRecordReader(reading: { buffer in bytes.read(into: buffer) }, path: file.recordsPath)
            } catch {
                throw SourceError(manager: file.manager, message: "\(file.source): the file \(error.description)")
            }
        }
    }

    /// The next record (its value, or why it is bad), or `nil` at the end of the file; throws
    /// when the file is damaged as a whole, or the manager's `budget.max_records` is passed.
    public func next() throws(SourceError) -> Result<Value, RecordError>? {
        switch try nextLanded(page: 0) {
        case nil: return nil
        case .record(let value, _, _)?: return .success(value)
        case .bad(_, let error, _, _)?: return .failure(error)
        }
    }

    /// The next record as a source lands it: a bad one with its line and text, named by the
    /// file's source.
    func nextLanded(page: Int) throws(SourceError) -> Landed? {
        let landed: Landed?
        do throws(InputError) {
            if let lines {
                landed = try lines.reader.next().map { record in record.landed(text: { lines.reader.currentText() }) }
            } else if let array {
                landed = try array.reader.next().map { record in record.landed(text: { nil }) }
            } else if let elements {
                do throws(ResponseRows.Problem) {
                    landed = try elements.next().map { .record($0, line: 0, page: page) }
                } catch {
                    if let failure = xmlInput?.failure { throw failure }
                    throw InputError(path: file.source, message: "the file " + error.description)
                }
            } else if let rows, let row = try rows.next() {
                switch row.record {
                case .success(let value): landed = .record(value, line: row.line, page: page)
                case .failure(let problem):
                    landed = .bad(
                        line: row.line, error: RecordError(code: "invalid-csv", message: "the row " + problem.description),
                        text: row.cells.joined(separator: String(UnicodeScalar(rows.delimiter))))
                }
            } else {
                landed = nil
            }
        } catch {
            throw SourceError(
                manager: file.manager, message: "\(file.source): \(error.message)" + (error.line.map { " (line \($0))" } ?? ""))
        }
        switch landed {
        case .record(let value, let line, _)?:
            count += 1
            do throws(ManagerError) { try file.budget?.spend(manager: file.manager) } catch { throw SourceError(error) }
            return .record(value, line: line, page: page)
        case .bad(let line, let error, let text, _)?:
            return .bad(line: line, error: error, text: text, at: "\(file.source):\(line)")
        case nil:
            return nil
        }
    }
}

/// An NDJSON reader held by reference.
private final class NDJSONPull {
    var reader: NDJSONReader
    init(_ reader: consuming NDJSONReader) { self.reader = reader }
}

/// A JSON array reader held by reference.
private final class ArrayPull {
    var reader: JSONArrayReader
    init(_ reader: consuming JSONArrayReader) { self.reader = reader }
}

/// An input file held by reference, read into buffers others own (libxml2's).
private final class InputPull {
    private var file: InputFile
    /// Why the file could not be read, when it could not.
    private(set) var failure: InputError?

    init(_ file: consuming InputFile) { self.file = file }

    /// Fills `buffer`: the bytes read, 0 at the end, -1 on a failure (kept in ``failure``).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        do throws(InputError) { return try file.read(into: base.assumingMemoryBound(to: UInt8.self), count: buffer.count) } catch {
            failure = error
            return -1
        }
    }
}
