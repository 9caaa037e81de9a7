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

    private static func lines(_ text: String) throws(Problem) -> [Value] {
        var records: [Value] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let bytes = Array(line.utf8.filter { $0 != UInt8(ascii: "\r") })
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            do { records.append(try JSON.parse(bytes)) } catch {
                throw Problem(description: "has a line that is not JSON at line \(index + 1), column \(error.column): \(error.message)")
            }
        }
        return records
    }

    private static func rows(_ text: String, delimiter: UInt8, columns: [String]?) throws(Problem) -> [Value] {
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var table: [[String]] = []
        var row: [String] = []
        var field: [UInt8] = []
        var line = 1
        var rowLine = 1
        var index = 0
        var quoted = false
        var fieldStarted = false
        func endField() {
            row.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldStarted = false
        }
        func endRow() {
            endField()
            if !(row.count == 1 && row[0].isEmpty) { table.append(row) }
            row.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") && !fieldStarted {
                quoted = true
                fieldStarted = true
            } else if byte == delimiter {
                endField()
            } else if byte == UInt8(ascii: "\n") {
                if field.last == UInt8(ascii: "\r") { field.removeLast() }
                endRow()
                line += 1
                rowLine = line
            } else {
                field.append(byte)
                fieldStarted = true
            }
            index += 1
        }
        if quoted { throw Problem(description: "has a quoted field that never ends (it opens on line \(rowLine))") }
        if field.last == UInt8(ascii: "\r") { field.removeLast() }
        if fieldStarted || !field.isEmpty || !row.isEmpty { endRow() }
        if let columns { table.insert(columns, at: 0) }
        guard let header = table.first else { return [] }
        if let repeated = header.enumerated().first(where: { header[..<$0.offset].contains($0.element) }) {
            throw Problem(description: "has the column '\(repeated.element)' twice in its header row; each column needs its own name")
        }
        let source = columns == nil ? "header row" : "'columns'"
        var records: [Value] = []
        records.reserveCapacity(table.count - 1)
        for (number, cells) in table.dropFirst().enumerated() {
            guard cells.count == header.count else {
                throw Problem(
                    description: "has \(cells.count) fields in data row \(number + 1), but its \(source) names \(header.count) "
                        + "(\(header.joined(separator: ", ")))")
            }
            var object = Object(minimumCapacity: header.count)
            for (name, cell) in zip(header, cells) { object.appendNew(key: name, value: .string(cell)) }
            records.append(.object(object))
        }
        return records
    }
}
