package import ReformEngine
import ReformSDK
import ReformSystem
import ReformYAML

/// `reform cat`: reads JSON, NDJSON or YAML documents, or a table's rows (`sqlite:PATH#TABLE`),
/// and writes them back in another notation, for looking at raw API data and stored records.
/// NDJSON and tables are streamed in constant memory.
package struct DocumentConverter {
    /// The notations `reform cat` writes.
    package enum Target: String, Sendable, CaseIterable {
        /// One compact JSON document per line (`jq -c`).
        case ndjson
        /// Each document pretty-printed (`jq .`).
        case json
        /// YAML 1.2 block style, documents separated by `---`.
        case yaml
        /// An aligned table of the records (array elements or objects).
        case table
    }

    /// The notation to write.
    package let target: Target
    /// Where to write.
    package let output: OutputFile
    private var table: (any RecordWriter)?
    private var yamlDocuments = 0

    /// A converter writing `target` to `output`; table colour and width as for `reform run`.
    package init(target: Target, output: OutputFile, colour: Bool = false, maxWidth: Int? = nil) {
        self.target = target
        self.output = output
        if target == .table { table = OutputFormat.table.makeWriter(columns: nil, output: output, colour: colour, maxWidth: maxWidth) }
    }

    /// Converts the file at `path` (`-` for standard input); returns the rendered diagnostics of
    /// invalid input (`file:line:column: error: …` with the source line), empty when all was valid.
    package mutating func convert(path: String) throws(OutputError) -> [String] {
        if let address = TableAddress(path) { return try convertTable(address) }
        let name = path == "-" ? "<stdin>" : path
        let lower = path.lowercased()
        if lower.hasSuffix(".ndjson") || lower.hasSuffix(".jsonl") {
            return try convertLines(path: path, name: name)
        }
        let bytes: [UInt8]
        do { bytes = try path == "-" ? FilePaths.readStandardInput() : FilePaths.readAll(path) } catch {
            return ["\(name): error: \(error.reason)"]
        }
        let isYAML =
            lower.hasSuffix(".yaml") || lower.hasSuffix(".yml")
            || (!lower.hasSuffix(".json") && !DocumentConverter.looksLikeJSON(bytes))
        if isYAML {
            do {
                for document in try YAMLLoader().load(bytes, file: name) { try emit(try document.toValue(file: name)) }
            } catch let error as YAMLError {
                return [error.rendered(source: String(decoding: bytes, as: UTF8.self))]
            } catch let error as OutputError {
                throw error
            } catch {
                return ["\(name): error: \(error)"]
            }
            return []
        }
        do {
            // A .json file is one document; several (one a line) are NDJSON. Standard input and
            // files named otherwise may hold a sequence, as jq reads them.
            if lower.hasSuffix(".json") {
                try emit(try JSON.parse(bytes))
            } else {
                for document in try JSON.parseSequence(bytes) { try emit(document) }
            }
        } catch let error as JSONError {
            return [DocumentConverter.diagnostic(DocumentConverter.oneDocument(error, source: bytes), file: name, source: bytes)]
        } catch let error as OutputError {
            throw error
        } catch {
            return ["\(name): error: \(error)"]
        }
        return []
    }

    /// Finishes the output (a table is written here).
    package mutating func finish() throws(OutputError) {
        try table?.finish()
        try output.flush()
    }

    private mutating func convertLines(path: String, name: String) throws(OutputError) -> [String] {
        var reader: NDJSONReader
        if path == "-" {
            reader = NDJSONReader(descriptor: 0, path: name)
        } else {
            do { reader = try NDJSONReader(path: path) } catch { return ["\(name): error: \(error.message)"] }
        }
        var problems: [String] = []
        while true {
            let landed: InputRecord?
            do { landed = try reader.next() } catch {
                problems.append("\(name): error: \(error.message)")
                break
            }
            guard let landed else { break }
            switch landed.payload {
            case .success(let value): try emit(value)
            case .failure(let error):
                let d = Diagnostic(file: name, location: SourceLocation(line: error.line, column: error.column), message: error.message)
                problems.append(d.rendered(source: String(repeating: "\n", count: max(0, error.line - 1)) + reader.currentText()))
            }
        }
        return problems
    }

    /// Writes every row of the table at `address` as a record, in the table's order.
    private mutating func convertTable(_ address: TableAddress) throws(OutputError) -> [String] {
        let reader: TableReader
        do { reader = try TableReader(address) } catch { return ["\(error.path): error: \(error.message)"] }
        while true {
            let record: Value?
            do { record = try reader.next() } catch { return ["\(error.path): error: \(error.message)"] }
            guard let record else { return [] }
            try emit(record)
        }
    }

    private mutating func emit(_ value: Value) throws(OutputError) {
        switch target {
        case .ndjson:
            JSON.write(value, into: &output.buffer)
            output.buffer.append(10)
        case .json:
            JSON.writePretty(value, into: &output.buffer)
            output.buffer.append(10)
        case .yaml:
            var text = ""
            YAMLWriter().write(value, to: &text)
            if yamlDocuments > 0 { output.buffer.append(contentsOf: "---\n".utf8) }
            output.buffer.append(contentsOf: text.utf8)
            if text.last != "\n" { output.buffer.append(10) }
            yamlDocuments += 1
        case .table:
            for record in value.arrayValue ?? [value] { try table?.write(record, style: .plain) }
        }
        try output.flushIfFull()
    }

    /// `error` from parsing a `.json` file, saying what a `.json` file holds when it is empty or
    /// has text after its document.
    private static func oneDocument(_ error: JSONError, source: [UInt8]) -> JSONError {
        let message: String
        if !source.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) {
            message = "the file is empty; a .json file holds one JSON document"
        } else if error.message.hasPrefix("expected end of input after the value") {
            message = error.message + "; a .json file holds one JSON document: put several, one a line, in a .ndjson or .jsonl file"
        } else {
            return error
        }
        return JSONError(code: error.code, message: message, line: error.line, column: error.column, offset: error.offset)
    }

    static func diagnostic(_ error: JSONError, file: String, source: [UInt8]) -> String {
        Diagnostic(file: file, location: SourceLocation(line: error.line, column: error.column), message: error.message)
            .rendered(source: String(decoding: source, as: UTF8.self))
    }

    private static func looksLikeJSON(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }) else { return true }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
    }
}
