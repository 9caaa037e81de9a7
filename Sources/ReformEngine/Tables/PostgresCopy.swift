import ReformSDK

/// Loads one table's rows on a PostgreSQL connection with the COPY protocol.
///
/// Rows are encoded in COPY's text format into a buffer that is sent when it is full and when
/// the run finishes, each batch a `COPY … FROM STDIN` of its own in a savepoint, on the
/// connection's sending thread (the server loads one batch while the next is encoded); tables of
/// one database share its connection (and transaction) and take turns. A row the server refuses
/// (a unique index, a value out of an `integer` column's range) is set aside with the server's
/// message (``takeRefused()``), and the batch's other rows load. An upsert copies into a temporary table, with
/// each row's arrival number and origin, and merges it at the end (``finish()``): the latest record
/// of a key wins, the rest of the key's records are gone, and a row the merge refuses is set aside
/// too (``merge()``).
final class PostgresCopy {
    let plan: TablePlan
    let connection: PostgresConnection
    /// `COPY target (columns) FROM STDIN`.
    private let copySQL: String
    /// The temporary table of an upsert, its arrival-order column, and the column holding where
    /// each row came from (all quoted; ``originText(_:)``), which a row the merge refuses is
    /// dead-lettered by.
    let staging: (table: String, arrival: String, origin: String)?
    private var buffer: [UInt8] = []
    /// Where each row of ``buffer`` came from, in order.
    private var origins: [TableLoader.RowOrigin] = []
    /// Batches sent, with where their rows came from, that may still be loading.
    private var sent: [(batch: PostgresConnection.CopyBatch, origins: [TableLoader.RowOrigin])] = []
    /// Rows the server refused in batches it has loaded (or in the merge), not yet taken.
    var refused: [(origin: TableLoader.RowOrigin, reason: String, row: [UInt8])] = []
    /// The names of the managers rows came from, by index (for rows the merge refuses).
    var managerNames: [Int: String] = [:]
    /// Whether a column is jsonb (by index): its text is JSON, where `\u0000` is a NUL.
    private let isJSON: [Bool]
    private(set) var arrival = 0
    /// Send when the buffer holds this much.
    private static let batchBytes = 1 << 20

    /// Makes ready to load `plan`'s table on `connection`, already checked or created with
    /// `plan`'s columns (``PostgresSchema/prepareTable(_:pipeline:on:)``): emptied for
    /// `mode: replace`, with a temporary table beside it for `mode: upsert`.
    init(_ plan: TablePlan, connection: PostgresConnection) throws(PostgresError) {
        self.plan = plan
        self.connection = connection
        isJSON = plan.columns.map { $0.isKnown && $0.type == .json }
        let table = PostgresConnection.quotedTable(plan.name)
        let columns = plan.columns.map { PostgresConnection.quoted($0.name) }.joined(separator: ", ")
        switch plan.mode {
        case .replace:
            // TRUNCATE is transactional in PostgreSQL: readers see the old rows until the commit.
            try connection.execute("TRUNCATE \(table)", doing: "cannot empty table '\(plan.name)'")
            staging = nil
            copySQL = "COPY \(table) (\(columns)) FROM STDIN"
        case .append:
            staging = nil
            copySQL = "COPY \(table) (\(columns)) FROM STDIN"
        case .upsert:
            let temporary = PostgresConnection.quoted(connection.temporaryTableName())
            let arrival = PostgresConnection.quoted(PostgresCopy.columnName("_reform_arrival", besides: plan.columns))
            let origin = PostgresConnection.quoted(PostgresCopy.columnName("_reform_origin", besides: plan.columns))
            try connection.execute(
                "CREATE TEMPORARY TABLE \(temporary) ON COMMIT DROP AS SELECT \(columns) FROM \(table) WITH NO DATA; "
                    + "ALTER TABLE \(temporary) ADD COLUMN \(arrival) bigint, ADD COLUMN \(origin) text",
                doing: "cannot make the upsert's temporary table for '\(plan.name)'")
            staging = (temporary, arrival, origin)
            copySQL = "COPY \(temporary) (\(columns), \(arrival), \(origin)) FROM STDIN"
        }
        buffer.reserveCapacity(PostgresCopy.batchBytes + 64 * 1024)
    }

    /// Adds one row: each slot's value (texts from `text`, or from `line` for a line slot), from
    /// `origin`. Returns why the row cannot be loaded instead (text with a NUL character, which
    /// PostgreSQL text cannot hold); throws when a full buffer cannot be sent.
    func append(
        _ slots: [TableLoader.Slot], text: UnsafeBufferPointer<UInt8>, line: UnsafeRawBufferPointer?, origin: TableLoader.RowOrigin
    ) throws(PostgresError) -> RecordError? {
        if let rejection = encode(slots, text: text, line: line, origin: origin) { return rejection }
        origins.append(origin)
        if buffer.count >= PostgresCopy.batchBytes { try flush() }
        return nil
    }

    /// The rows the server refused in the batches loaded so far: where each came from, the
    /// server's message, and the row as sent.
    func takeRefused() -> [(origin: TableLoader.RowOrigin, reason: String, row: [UInt8])] {
        collectLoaded()
        defer { refused.removeAll() }
        return refused
    }

    /// Moves the refused rows of the batches the server has loaded into ``refused`` and lets go
    /// of those batches (and where their rows came from): every batch but the one in flight has
    /// been loaded, since the connection loads one at a time.
    private func collectLoaded() {
        let loaded = sent.last.map { connection.isLoading($0.batch) } == true ? sent.count - 1 : sent.count
        guard loaded > 0 else { return }
        for (batch, origins) in sent[..<loaded] {
            // In the batch's order: the server finds some refusals (a value) before others (an index).
            for row in batch.refused.sorted(by: { $0.index < $1.index }) where row.index < origins.count {
                refused.append((origins[row.index], row.reason, row.row))
            }
        }
        sent.removeFirst(loaded)
    }

    /// Appends one row to the buffer, or returns why it cannot be loaded (appending nothing).
    private func encode(
        _ slots: [TableLoader.Slot], text: UnsafeBufferPointer<UInt8>, line: UnsafeRawBufferPointer?, origin: TableLoader.RowOrigin
    ) -> RecordError? {
        // The row is encoded into the buffer taken out of the object: each access to a stored
        // property of a class is checked for exclusivity at run time (perf: a tenth of the run).
        var out: [UInt8] = []
        swap(&out, &buffer)
        defer { swap(&out, &buffer) }
        let mark = out.count
        for (index, slot) in slots.enumerated() {
            if index > 0 { out.append(9) }
            switch slot {
            case .null: out.append(contentsOf: PostgresCopy.null)
            case .int(let i): PostgresCopy.appendInt(i, into: &out)
            case .double(let d): out.append(contentsOf: "\(d)".utf8)
            case .text(let start, let count):
                let bytes = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[start..<(start + count)]))
                guard PostgresCopy.appendEscaped(bytes, json: isJSON[index], into: &out) else {
                    out.removeSubrange(mark...)
                    return nulRejection(index)
                }
            case .line(let start, let count):
                guard let line,
                    PostgresCopy.appendEscaped(
                        UnsafeRawBufferPointer(rebasing: line[start..<(start + count)]), json: isJSON[index], into: &out)
                else {
                    out.removeSubrange(mark...)
                    return nulRejection(index)
                }
            }
        }
        if staging != nil {
            arrival += 1
            out.append(9)
            PostgresCopy.appendInt(arrival, into: &out)
            out.append(9)
            PostgresCopy.appendOrigin(origin, into: &out)
            if managerNames[origin.origin.manager.index] == nil {
                managerNames[origin.origin.manager.index] = origin.origin.manager.name
            }
        }
        out.append(10)
        return nil
    }

    /// Sends the rows buffered so far, on the connection's sending thread (the next batch is
    /// encoded meanwhile, into the storage of the batch before).
    func flush() throws(PostgresError) {
        guard !buffer.isEmpty else { return }
        var batch: [UInt8] = []
        swap(&batch, &buffer)
        var started = try connection.copyInBackground(copySQL, data: batch, doing: "cannot load rows into '\(plan.name)'")
        collectLoaded()
        sent.append((started.batch, origins))
        origins = []
        origins.reserveCapacity(sent.last?.origins.count ?? 0)
        // Swapped, not copied: a second reference to the spare storage would make reserving
        // capacity allocate a new megabyte for every batch.
        swap(&buffer, &started.spare)
        buffer.reserveCapacity(PostgresCopy.batchBytes + 64 * 1024)
    }

    /// Sends the last rows and waits for them (``takeRefused()`` then has every refused row); for
    /// an upsert, merges the temporary table into the table, the latest record of each key
    /// winning.
    func finish() throws(PostgresError) {
        try flush()
        try connection.endCopy()
        guard staging != nil else { return }
        try merge()
    }

    /// The name of one of the upsert's own columns in its temporary table (`_reform_arrival`,
    /// `_reform_origin`), with `_` added until it is none of the table's columns (a key's constant
    /// may be anything).
    static func columnName(_ base: String, besides columns: [TableColumn]) -> String {
        var name = base
        while columns.contains(where: { $0.name == name }) { name += "_" }
        return name
    }

    private func nulRejection(_ index: Int) -> RecordError {
        RecordError(
            code: "column-type",
            message: "column \(plan.columns[index].name) of table '\(plan.name)' cannot hold its value: "
                + "PostgreSQL text cannot hold the NUL character (\\u0000); remove it in the reformer")
    }

    /// The row `row` (COPY text, as ``append(_:text:line:origin:)`` encoded it) as a record of
    /// `columns`: numbers, bools and JSON as their columns hold them, text as text, `\N` null.
    static func decode(_ row: [UInt8], columns: [TableColumn]) -> Value {
        var object = Object(minimumCapacity: columns.count)
        let fields = row.split(separator: 9, omittingEmptySubsequences: false)
        for (column, field) in zip(columns, fields) {
            guard field.elementsEqual(null) == false else {
                object.appendNew(key: column.name, value: .null)
                continue
            }
            var bytes: [UInt8] = []
            var escaped = false
            for byte in field {
                if escaped {
                    bytes.append([UInt8(ascii: "t"): 9, UInt8(ascii: "n"): 10, UInt8(ascii: "r"): 13][byte] ?? byte)
                    escaped = false
                } else if byte == 92 {
                    escaped = true
                } else {
                    bytes.append(byte)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let value: Value
            switch column.isKnown ? column.type : .text {
            case .int: value = Int(text).map(Value.int) ?? .string(text)
            case .double: value = Double(text).map(Value.double) ?? .string(text)
            case .bool: value = text == "1" ? .bool(true) : text == "0" ? .bool(false) : .string(text)
            case .json: value = (try? JSON.parse(bytes)) ?? .string(text)
            case .text, .date: value = .string(text)
            }
            object.appendNew(key: column.name, value: value)
        }
        return .object(object)
    }

    /// `\N`: NULL in COPY's text format.
    static let null: [UInt8] = [92, 78]

    static func appendInt(_ value: Int, into buffer: inout [UInt8]) {
        if value < 0 {
            buffer.append(UInt8(ascii: "-"))
            if value == Int.min {
                buffer.append(contentsOf: "9223372036854775808".utf8)
                return
            }
        }
        var magnitude = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { bytes in
            repeat {
                bytes[19 - count] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 48
                magnitude /= 10
                count += 1
            } while magnitude > 0
            buffer.append(contentsOf: bytes[(20 - count)...])
        }
    }

    /// Appends `bytes` with COPY's escapes (backslash, tab, newline, carriage return); `false`
    /// for a NUL byte, or in `json` text the escape of one (`\u0000`), which jsonb refuses.
    static func appendEscaped(_ bytes: UnsafeRawBufferPointer, json: Bool, into buffer: inout [UInt8]) -> Bool {
        var start = 0
        for (offset, byte) in bytes.enumerated() {
            let escape: UInt8
            switch byte {
            case 92:
                if json, offset + 5 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u"), bytes[offset + 2] == 48, bytes[offset + 3] == 48,
                    bytes[offset + 4] == 48, bytes[offset + 5] == 48
                {
                    return false
                }
                escape = 92
            case 9: escape = UInt8(ascii: "t")
            case 10: escape = UInt8(ascii: "n")
            case 13: escape = UInt8(ascii: "r")
            case 0: return false
            default: continue
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
            buffer.append(92)
            buffer.append(escape)
            start = offset + 1
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...]))
        return true
    }
}
