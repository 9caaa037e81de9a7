package import ReformSDK

/// Records from a body that is not one JSON document: NDJSON lines, or CSV/TSV rows under a header
/// row (RFC 4180: fields in double quotes may hold the delimiter, line breaks and `""` for a quote;
/// a line break is `\n` or `\r\n`). Every CSV value is text, as written; convert it in a reformer.
package enum ResponseRows {
    /// Why a body could not be read, with the line where (1-based).
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// The records of `text` in `format` (not `.json`); `path` names XML's record elements and
    /// `csv` says how CSV and TSV are split.
    package static func records(_ text: String, format: ResponseFormat, path: ValuePath? = nil, csv: CSVOptions? = nil)
        throws(Problem) -> [Value]
    {
        switch format {
        case .json: throw Problem(description: "is JSON")
        case .ndjson: return try lines(text)
        case .csv: return try rows(text, delimiter: csv?.delimiter ?? UInt8(ascii: ","), columns: csv?.columns)
        case .tsv: return try rows(text, delimiter: csv?.delimiter ?? UInt8(ascii: "\t"), columns: csv?.columns)
        case .xml: return try XMLRecords.records(text, path: path)
        }
    }

    /// Lines end at a line feed, one carriage return before it dropped (as ``NDJSONReader`` reads
    /// a file: split as bytes, since Swift reads `\r\n` as one character); blank lines (spaces,
    /// tabs, carriage returns) are skipped.
    private static func lines(_ text: String) throws(Problem) -> [Value] {
        var records: [Value] = []
        for (index, line) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let bytes = line.last == 0x0D ? line.dropLast() : line[...]
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            do { records.append(try JSON.parse(Array(bytes))) } catch {
                throw Problem(description: "has a line that is not JSON at line \(index + 1), column \(error.column): \(error.message)")
            }
        }
        return records
    }

    private static func rows(_ text: String, delimiter: UInt8, columns: [String]?) throws(Problem) -> [Value] {
        var tokenizer = CSVTokenizer(delimiter: delimiter)
        var table = CSVTable(columns: columns)
        var records: [Value] = []
        func take(_ cells: [String], line: Int) throws(CSVProblem) {
            guard let record = try table.record(cells) else { return }
            records.append(try record.get())
        }
        do throws(CSVProblem) {
            var text = text
            let fed = text.withUTF8 { bytes in Result { () throws(CSVProblem) in try tokenizer.feed(bytes, emit: take) } }
            try fed.get()
            if let problem = try tokenizer.finish(emit: take) { throw problem }
        } catch {
            throw Problem(description: error.description)
        }
        return records
    }
}
