public import ReformSDK

#if canImport(Glibc)
import Glibc
#endif

/// Records from a JSON input: NDJSON streamed line by line (also `-`, standard input), or a `.json`
/// file holding an array of records or one record.
///
/// A line that is not valid JSON becomes a bad record (dead-lettered with its line and the parse
/// error); the rest of the file is still read.
struct JSONFileSource: RecordSource {
    let inputName: String
    private var lines: LineReader
    private var parser = JSONParser()
    private var array: [Value]?
    private var arrayIndex = 0

    init(path: String, manager: String) throws(SourceError) {
        inputName = path == "-" ? "<stdin>" : path
        let fd: Int32 = path == "-" ? 0 : open(path, O_RDONLY)
        guard fd >= 0 else {
            throw SourceError(manager: manager, message: "cannot read input \(path): \(String(cString: strerror(errno)))")
        }
        lines = LineReader(descriptor: fd, closeWhenDone: path != "-")
        if path.hasSuffix(".json") {
            var bytes: [UInt8] = []
            while let chunk = lines.nextChunk() { bytes.append(contentsOf: chunk) }
            do {
                let document = try JSON.parse(bytes)
                array = document.arrayValue ?? [document]
            } catch {
                throw SourceError(manager: manager, message: "\(path):\(error.line):\(error.column): error: \(error.message)")
            }
        }
    }

    mutating func next() throws(SourceError) -> Landed? {
        if let array {
            guard arrayIndex < array.count else { return nil }
            defer { arrayIndex += 1 }
            return .record(array[arrayIndex], line: 0, page: 0)
        }
        while let (line, number) = lines.nextLine() {
            if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            let parsed: Result<Value, JSONError> = line.withUnsafeBytes { raw in
                Result { () throws(JSONError) -> Value in try parser.parse(raw) }
            }
            switch parsed {
            case .success(let value):
                return .record(value, line: number, page: 0)
            case .failure(let error):
                let text = String(decoding: line.prefix(1000), as: UTF8.self)
                return .bad(
                    line: number,
                    error: RecordError(code: "invalid-json", message: "column \(error.column): \(error.message)"),
                    text: text)
            }
        }
        return nil
    }
}

/// Reads a file descriptor in large chunks and hands out lines without their `\n`, in constant memory.
struct LineReader {
    private let descriptor: Int32
    private let closeWhenDone: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var lineNumber = 0
    private static let chunkSize = 1 << 20

    init(descriptor: Int32, closeWhenDone: Bool) {
        self.descriptor = descriptor
        self.closeWhenDone = closeWhenDone
    }

    /// The next line and its 1-based number, or `nil` at the end.
    mutating func nextLine() -> (ArraySlice<UInt8>, Int)? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                let line = buffer[start..<newline]
                start = newline + 1
                lineNumber += 1
                return (line, lineNumber)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                lineNumber += 1
                return (line, lineNumber)
            }
            fill()
        }
    }

    /// The rest of the input in chunks (for whole-document files).
    mutating func nextChunk() -> ArraySlice<UInt8>? {
        if start < buffer.count {
            defer { start = buffer.count }
            return buffer[start...]
        }
        guard !atEnd else { return nil }
        buffer.removeAll(keepingCapacity: true)
        start = 0
        fill()
        start = buffer.count
        return buffer.isEmpty ? nil : buffer[...]
    }

    private mutating func fill() {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let old = buffer.count
        buffer.reserveCapacity(old + LineReader.chunkSize)
        var chunk = [UInt8](repeating: 0, count: LineReader.chunkSize)
        var n = 0
        repeat {
            n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        } while n < 0 && errno == EINTR
        if n <= 0 {
            atEnd = true
            if closeWhenDone { close(descriptor) }
            return
        }
        buffer.append(contentsOf: chunk[0..<n])
    }
}
