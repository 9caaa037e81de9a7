import ReformSDK

/// Splits CSV or TSV text into rows of cells, fed in pieces of any size (RFC 4180: fields in
/// double quotes may hold the delimiter, line breaks and `""` for a quote; a line break is `\n`
/// or `\r\n`; a UTF-8 byte-order mark at the start is dropped; empty lines are skipped).
///
/// The one reading of CSV: a body in memory is fed whole (``ResponseRows``), a result file a
/// chunk at a time (``CSVReader``), and both get the same rows.
struct CSVTokenizer {
    /// The byte between fields.
    let delimiter: UInt8
    /// The 1-based line the next byte is on.
    private(set) var line = 1
    /// The line the row being read started on.
    private var rowLine = 1
    private var field: [UInt8] = []
    private var row: [String] = []
    private var quoted = false
    /// A `"` was read inside quotes: the next byte says whether it was `""` or the closing one.
    private var quoteInQuotes = false
    private var fieldStarted = false
    /// The first bytes, held until three have come, to drop a byte-order mark.
    private var leading = StreamStart(count: 3)

    /// A tokenizer splitting fields at `delimiter`.
    init(delimiter: UInt8) {
        self.delimiter = delimiter
    }

    /// Reads `bytes`, handing each row it completes to `emit` with the line it starts on.
    mutating func feed<Failure: Error>(_ bytes: UnsafeBufferPointer<UInt8>, emit: ([String], Int) throws(Failure) -> Void)
        throws(Failure)
    {
        guard leading.isHolding else { return try consume(bytes, emit: emit) }
        guard let start = leading.take(UnsafeRawBufferPointer(bytes)) else { return }
        try consumeStart(start, emit: emit)
    }

    /// Ends the text: hands the last row to `emit`; returns the problem when a quoted field
    /// never closes.
    mutating func finish<Failure: Error>(emit: ([String], Int) throws(Failure) -> Void) throws(Failure) -> CSVProblem? {
        if let start = leading.end() { try consumeStart(start, emit: emit) }
        if quoteInQuotes {
            quoteInQuotes = false
            quoted = false
        }
        if quoted { return CSVProblem(description: "has a quoted field that never ends (it opens on line \(rowLine))") }
        if field.last == UInt8(ascii: "\r") { field.removeLast() }
        if fieldStarted || !field.isEmpty || !row.isEmpty { try endRow(emit: emit) }
        return nil
    }

    /// Reads the text's first bytes, without a byte-order mark.
    private mutating func consumeStart<Failure: Error>(_ start: [UInt8], emit: ([String], Int) throws(Failure) -> Void)
        throws(Failure)
    {
        let text = start.starts(with: [0xEF, 0xBB, 0xBF]) ? start.dropFirst(3) : start[...]
        let fed = text.withUnsafeBufferPointer { text in Result { () throws(Failure) in try consume(text, emit: emit) } }
        try fed.get()
    }

    private mutating func consume<Failure: Error>(_ bytes: UnsafeBufferPointer<UInt8>, emit: ([String], Int) throws(Failure) -> Void)
        throws(Failure)
    {
        for byte in bytes {
            if quoteInQuotes {
                quoteInQuotes = false
                if byte == UInt8(ascii: "\"") {
                    field.append(byte)
                    continue
                }
                quoted = false
            }
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    quoteInQuotes = true
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
                try endRow(emit: emit)
                line += 1
                rowLine = line
            } else {
                field.append(byte)
                fieldStarted = true
            }
        }
    }

    private mutating func endField() {
        row.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        fieldStarted = false
    }

    private mutating func endRow<Failure: Error>(emit: ([String], Int) throws(Failure) -> Void) throws(Failure) {
        endField()
        let cells = row
        row.removeAll(keepingCapacity: true)
        if !(cells.count == 1 && cells[0].isEmpty) { try emit(cells, rowLine) }
    }
}

/// What is wrong with CSV text, said after "the csv body" (or "the result file").
struct CSVProblem: Error, CustomStringConvertible {
    let description: String
}

/// Turns CSV rows into records: the first row names the columns (or the manager's `columns:`),
/// and each later row is an object of text values under those names.
struct CSVTable {
    private(set) var header: [String]?
    private let given: Bool
    private var checked = false
    /// Data rows seen so far.
    private(set) var dataRows = 0

    /// A table whose columns are `columns`, or the first row's when `nil`.
    init(columns: [String]?) {
        header = columns
        given = columns != nil
    }

    /// The record of `cells`: `nil` for the header row; a problem with the row (a wrong number
    /// of fields) as a failure. Throws when the header names a column twice.
    mutating func record(_ cells: [String]) throws(CSVProblem) -> Result<Value, CSVProblem>? {
        if !checked {
            checked = true
            let names = header ?? cells
            if let repeated = names.enumerated().first(where: { names[..<$0.offset].contains($0.element) }) {
                throw CSVProblem(
                    description: "has the column '\(repeated.element)' twice in its header row; each column needs its own name")
            }
        }
        guard let header else {
            header = cells
            return nil
        }
        dataRows += 1
        guard cells.count == header.count else {
            return .failure(
                CSVProblem(
                    description: "has \(cells.count) fields in data row \(dataRows), but its \(given ? "'columns'" : "header row") names "
                        + "\(header.count) (\(header.joined(separator: ", ")))"))
        }
        var object = Object(minimumCapacity: header.count)
        for (name, cell) in zip(header, cells) { object.appendNew(key: name, value: .string(cell)) }
        return .success(.object(object))
    }
}
