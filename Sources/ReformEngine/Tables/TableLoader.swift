import ReformSDK

/// Loads one output's records into its SQL table, inside the run's transaction on the database.
///
/// Made when the run starts: the table is checked against the pipeline's columns (or created),
/// emptied for `mode: replace`, and one insert (or upsert) statement is prepared (SQLite), or a
/// COPY made ready (PostgreSQL, ``PostgresCopy``). Each record's values are converted to their
/// columns' types the same way for both; a value that does not fit its column, a null upsert key
/// or (SQLite) a constraint the row breaks rejects that record (the caller dead-letters it). The
/// rows become visible only when ``DatabaseTransactions/commitAll()`` commits.
final class TableLoader {
    /// The table, with the columns rows are loaded into (``TableSettlement/loaded``): the
    /// declared plan's, or fewer and retyped where a discarding contract keeps the table as it is.
    let plan: TablePlan
    /// The pipeline's columns the table lacks and keeps lacking (``TableSettlement/absent``).
    private let absent: [TableColumn]
    /// The columns `schema: evolve` added to the table, for the run's summary.
    let added: [TableColumn]
    /// The columns `widen: true` gave a wider type, with the type each had, for the run's summary.
    let widened: [(column: TableColumn, from: String)]
    /// Values `schema: discard_value` left out of rows that loaded.
    private(set) var discardedValues = 0
    /// Whether rows are loaded into exactly the pipeline's columns (no column left out or
    /// retyped): what ``TableDirect`` binds straight from input lines (a value it cannot bind as
    /// it is takes the general path, which rejects it or leaves it out).
    let loadsDeclaredColumns: Bool
    /// `DATABASE#TABLE`, for messages and the run's summary.
    let displayName: String
    /// The run's name in the load and schema logs.
    private let pipeline: String
    /// The database's connection, inside the run's transaction.
    private let connection: DatabaseTransactions.Connection
    /// The database, for messages (a PostgreSQL URL with its secrets hidden).
    private let databaseName: String
    private let sink: Sink
    /// The UTF-8 text of one row's text values, bound in place.
    private var text: [UInt8] = []
    /// Where each column's value is: its text in ``text`` or in the input line, a number, or null.
    private var slots: [Slot]
    /// Whether a column is part of the upsert key, by column index.
    private let isKey: [Bool]
    /// The rows of each child table (``TablePlan/children``), held until this table's are loaded.
    let children: [ChildTableRows]
    /// Rows handed to the database so far: each one's number, which a child table's rows carry
    /// until they are loaded.
    private(set) var ordinal = 0
    /// The numbers of rows the database refused after they were handed on (PostgreSQL), whose
    /// child rows are left out.
    private(set) var refusedOrdinals: Set<Int> = []
    /// What a child table is loaded with: the database (resolved) and the run's transactions.
    let database: String
    let transactions: DatabaseTransactions
    /// The run's name in the load and schema logs.
    var pipelineName: String { pipeline }

    /// Where rows go: a prepared insert, or a COPY buffer.
    private enum Sink {
        case sqlite(SQLiteStatement)
        case postgres(PostgresCopy)
    }

    /// One value of the row being loaded.
    enum Slot {
        case null
        case int(Int)
        case double(Double)
        /// UTF-8 bytes in ``text``.
        case text(start: Int, count: Int)
        /// UTF-8 bytes in the input line being loaded directly (``writeDirect(_:ranges:canonical:sourceIndex:parser:)``).
        case line(start: Int, count: Int)
    }

    /// The loader of `declared` into the database at `database`: for SQLite, `plan.database`
    /// resolved against the run's output folder; for PostgreSQL, the URL with its references
    /// resolved. The table is settled with the pipeline's columns by the output's contract;
    /// `pipeline` names the run in the schema log.
    init(_ declared: TablePlan, pipeline: String, database: String, transactions: DatabaseTransactions) throws(OutputError) {
        let settlement: TableSettlement
        switch declared.engine {
        case .sqlite:
            let connection = try transactions.connection(to: database, displayPath: database)
            self.connection = .sqlite(connection)
            displayName = database + "#" + declared.name
            databaseName = database
            do throws(SQLiteError) {
                settlement = try TableLoader.prepareTable(declared, pipeline: pipeline, on: connection)
                if declared.mode == .replace {
                    try connection.execute(
                        "DELETE FROM \(SQLiteConnection.quoted(declared.name))", doing: "cannot empty table '\(declared.name)'")
                }
                sink = .sqlite(
                    try connection.prepare(
                        TableLoader.insertSQL(for: declared.loading(settlement.loaded)),
                        doing: "cannot prepare the insert into '\(declared.name)'"))
            } catch {
                throw OutputError(path: database, message: DatabaseTransactions.explain(error))
            }
        case .postgres:
            let url = PostgresURL(database)
            let connection = try transactions.connection(to: url)
            self.connection = .postgres(connection)
            displayName = url.displayName + "#" + declared.name
            databaseName = url.displayName
            do throws(PostgresError) {
                settlement = try PostgresSchema.prepareTable(declared, pipeline: pipeline, on: connection)
                sink = .postgres(try PostgresCopy(declared.loading(settlement.loaded), connection: connection))
            } catch {
                throw OutputError(path: url.displayName, message: error.message)
            }
        }
        plan = declared.loading(settlement.loaded)
        self.pipeline = pipeline
        self.database = database
        self.transactions = transactions
        absent = settlement.absent
        added = settlement.added
        widened = settlement.widened
        loadsDeclaredColumns = settlement.absent.isEmpty && settlement.loaded == declared.columns && declared.children.isEmpty
        slots = Array(repeating: .null, count: plan.columns.count)
        isKey = plan.columns.map { declared.key.contains($0.name) }
        children = declared.children.map(ChildTableRows.init)
        text.reserveCapacity(4096)
    }

    /// Whether this loader's database has the table `name` (in the run's transaction).
    func hasTable(_ name: String) throws(OutputError) -> Bool {
        switch connection {
        case .sqlite(let connection):
            do throws(SQLiteError) { return try connection.hasTable(name) } catch {
                throw OutputError(path: databaseName, message: DatabaseTransactions.explain(error))
            }
        case .postgres(let connection):
            do throws(PostgresError) { return try connection.hasTable(PostgresConnection.quotedTable(name)) } catch {
                throw OutputError(path: databaseName, message: error.message)
            }
        }
    }

    /// The type `column` is declared with in this loader's database (`REAL`, `double precision`).
    func declaredType(of column: TableColumn) -> String {
        plan.engine == .sqlite ? column.type.sqlType : PostgresSchema.columnType(column)
    }

    /// Sends what is still buffered (PostgreSQL), and merges an upsert: called once, after the
    /// last record and before the transaction commits.
    func finish() throws(OutputError) {
        guard case .postgres(let copy) = sink else { return }
        do throws(PostgresError) { try copy.finish() } catch {
            throw OutputError(path: databaseName, message: error.message)
        }
    }

    /// Logs the run's load of `rows` rows in `_reform_loads`, in the run's transaction (after
    /// ``finish()``, when the refused rows are known).
    func logLoad(rows: Int) throws(OutputError) {
        switch connection {
        case .sqlite(let connection):
            do throws(SQLiteError) {
                try connection.execute(TableSchemaLog.createLoadsSQLite, doing: "cannot make \(TableSchemaLog.loads)")
                let insert = try connection.prepare(TableSchemaLog.insertLoadSQLite, doing: "cannot write \(TableSchemaLog.loads)")
                insert.bindText(1, pipeline)
                insert.bindText(2, plan.name)
                insert.bindText(3, plan.mode.rawValue)
                insert.bind(4, rows)
                try insert.step(doing: "cannot write \(TableSchemaLog.loads)")
            } catch {
                throw OutputError(path: databaseName, message: DatabaseTransactions.explain(error))
            }
        case .postgres(let connection):
            do throws(PostgresError) {
                try connection.execute(TableSchemaLog.createLoadsPostgres, doing: "cannot make \(TableSchemaLog.loads)")
                _ = try connection.query(
                    TableSchemaLog.insertLoadPostgres, [pipeline, plan.name, plan.mode.rawValue, String(rows)],
                    doing: "cannot write \(TableSchemaLog.loads)")
            } catch {
                throw OutputError(path: databaseName, message: error.message)
            }
        }
    }

    /// `INSERT INTO t (columns) VALUES (?…)`, and for upsert `ON CONFLICT (key) DO UPDATE` the
    /// other columns (`DO NOTHING` when every column is part of the key).
    static func insertSQL(for plan: TablePlan) -> String {
        let names = plan.columns.map { SQLiteConnection.quoted($0.name) }
        var sql =
            "INSERT INTO \(SQLiteConnection.quoted(plan.name)) (\(names.joined(separator: ", "))) VALUES ("
            + (1...plan.columns.count).map { "?\($0)" }.joined(separator: ", ") + ")"
        if plan.mode == .upsert {
            let others = plan.columns.filter { !plan.key.contains($0.name) }.map { SQLiteConnection.quoted($0.name) }
            sql += " ON CONFLICT (\(plan.key.map(SQLiteConnection.quoted).joined(separator: ", "))) DO "
            sql += others.isEmpty ? "NOTHING" : "UPDATE SET " + others.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        }
        return sql
    }

    /// Where a row came from, for the dead-letter entry of a row the server refuses later
    /// (PostgreSQL loads a batch while the run goes on): the record's origin and the input it
    /// was read from (an index into ``inputNames``, -1 for none), and whether it was bound straight
    /// from its line (the fast path, which counted it as written directly).
    struct RowOrigin {
        let origin: Origin
        let input: Int
        let direct: Bool
        /// The row's number among those handed to the database (``ordinal``).
        let ordinal: Int
    }

    /// A row the database refused after the run had handed it on, to dead-letter.
    struct Refused {
        /// The record's origin.
        let origin: Origin
        /// The input it was read from, if any.
        let input: String?
        /// Why (the server's message).
        let error: RecordError
        /// The row as it was sent: column → value.
        let record: Value
        /// Whether it was bound straight from its line (``RowOrigin/direct``).
        let direct: Bool
    }

    /// The inputs rows were read from, each once (``RowOrigin/input``).
    private var inputNames: [String] = []

    /// `origin` from `input`, as a row keeps it.
    private func rowOrigin(_ origin: Origin, input: String?, direct: Bool) -> RowOrigin {
        guard let input else { return RowOrigin(origin: origin, input: -1, direct: direct, ordinal: ordinal) }
        if inputNames.last != input { inputNames.append(input) }
        return RowOrigin(origin: origin, input: inputNames.count - 1, direct: direct, ordinal: ordinal)
    }

    /// The rows the database refused since the last call (PostgreSQL: in the batches it has
    /// loaded), each with the server's message; the others are loaded.
    func takeRefused() -> [Refused] {
        guard case .postgres(let copy) = sink else { return [] }
        return copy.takeRefused().map { refused in
            if !children.isEmpty { refusedOrdinals.insert(refused.origin.ordinal) }
            return Refused(
                origin: refused.origin.origin, input: refused.origin.input >= 0 ? inputNames[refused.origin.input] : nil,
                error: RecordError(code: "refused", message: "table '\(plan.name)' refused the row: \(refused.reason)"),
                record: PostgresCopy.decode(refused.row, columns: plan.columns), direct: refused.origin.direct)
        }
    }

    /// Inserts (or upserts) `record`, from `origin` in `input`; returns why it was rejected
    /// instead, when a value does not fit its column, an upsert key is null, a child table's key
    /// holds no list, or the row breaks a constraint (SQLite; PostgreSQL's refusals come later,
    /// ``takeRefused()``). The lists of child tables' keys are held for ``loadChildren(deadLetter:)``,
    /// with the record's origin and input. Throws when the database fails as a whole (the run then
    /// fails and rolls back).
    func write(_ record: Value, origin: Origin, input: String?) throws(OutputError) -> RecordError? {
        guard case .object(let object) = record else {
            return RecordError(
                code: "not-an-object", message: "table '\(plan.name)' takes records (objects), not \(record.kindName)")
        }
        text.removeAll(keepingCapacity: true)
        text.append(0)  // never empty: the buffer always has an address to bind from
        var leftOut = 0
        for column in absent {
            guard let value = object[column.name], value != .null else { continue }
            guard plan.contract == .discardValue else {
                return RecordError(
                    code: "unknown-column",
                    message: "table '\(plan.name)' has no column \(column.name) for '\(column.key)' (\(JSON.compactString(value))), "
                        + "and schema: discard_row keeps the table as it is; set schema: evolve to add the column, "
                        + "or discard_value to load the row without the value")
            }
            leftOut += 1
        }
        let members = object.members
        for (index, column) in plan.columns.enumerated() {
            // A keyed chain emits its keys in declared order: look a key up only when it is not there.
            let value: Value? =
                index < members.count && members[index].key == column.name ? members[index].value : object[column.name]
            do throws(RecordError) {
                slots[index] = try slot(for: value ?? .null, in: column)
            } catch {
                guard plan.contract == .discardValue, !isKey[index] else { return error }
                slots[index] = .null
                leftOut += 1
            }
            if isKey[index], case .null = slots[index] {
                return RecordError(
                    code: "null-key",
                    message: "'\(column.key)' is null (or missing), and it is part of the upsert key of table '\(plan.name)'; "
                        + "every row needs a key (give it a default in the reformer, or filter such records out)")
            }
        }
        var lists: [[Value]] = []
        for child in children {
            guard let elements = ChildTableRows.elements(of: object[child.plan.source.name]) else {
                return RecordError(
                    code: "not-a-list",
                    message: "'\(child.plan.source.key)' goes to child table '\(child.plan.name)', and holds "
                        + "\(object[child.plan.source.name]?.kindName ?? "nothing"), not a list; make it a list in the reformer "
                        + "(a path with [] and array: list), or leave it out of child_tables")
            }
            lists.append(elements)
        }
        let rejection = try insertRow(line: nil, origin: origin, input: input)
        if rejection == nil {
            discardedValues += leftOut
            if !children.isEmpty { try holdChildRows(lists, of: object, origin: origin, input: input) }
            ordinal += 1
        }
        return rejection
    }

    /// Binds ``slots`` (texts from ``text``, or from `line` for ``Slot/line``) and steps the
    /// insert; returns the rejection when the row breaks a constraint, throws when the database fails.
    private func insertRow(line: UnsafeRawBufferPointer?, origin: Origin, input: String?) throws(OutputError) -> RecordError? {
        let insert: SQLiteStatement
        switch sink {
        case .sqlite(let statement): insert = statement
        case .postgres(let copy):
            let from = rowOrigin(origin, input: input, direct: line != nil)
            let appended: Result<RecordError?, PostgresError> = text.withUnsafeBufferPointer { bytes in
                do throws(PostgresError) { return .success(try copy.append(slots, text: bytes, line: line, origin: from)) } catch {
                    return .failure(error)
                }
            }
            switch appended {
            case .success(let rejection): return rejection
            case .failure(let error): throw OutputError(path: databaseName, message: error.message)
            }
        }
        let stepped: Result<Void, SQLiteError> = text.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return .success(()) }
                let lineBase = line?.baseAddress?.assumingMemoryBound(to: CChar.self)
                for (index, slot) in slots.enumerated() {
                    let parameter = Int32(index + 1)
                    switch slot {
                    case .null: insert.bindNull(parameter)
                    case .int(let i): insert.bind(parameter, i)
                    case .double(let d): insert.bind(parameter, d)
                    case .text(let start, let count): insert.bindText(parameter, base + start, count: count)
                    case .line(let start, let count):
                        if let lineBase { insert.bindText(parameter, lineBase + start, count: count) } else { insert.bindNull(parameter) }
                    }
                }
                do throws(SQLiteError) {
                    try insert.step(doing: "cannot insert into '\(plan.name)'")
                    insert.reset()
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
        }
        if case .failure(let error) = stepped {
            if error.isConstraint {
                return RecordError(code: "constraint", message: error.message)
            }
            throw OutputError(path: databaseName, message: DatabaseTransactions.explain(error))
        }
        return nil
    }

    /// Inserts the record in an NDJSON `line` (from `origin` in `input`) straight from its bytes, for a plain mapping
    /// (``TableDirect``): `ranges` and `canonical` are what ``JSONParser/locate(_:keeping:into:canonical:)``
    /// found, `sourceIndex` the range of each column. Text without escapes is bound where it is
    /// in the line; other values are parsed alone and converted as ``write(_:)`` converts them.
    /// Returns `false`, inserting nothing, for anything ``write(_:)`` would reject: the general
    /// path then rejects it with its reason.
    func writeDirect(
        _ line: UnsafeRawBufferPointer, ranges: [Range<Int>?], canonical: [Bool], sourceIndex: [Int], parser: inout JSONParser,
        origin: Origin, input: String?
    ) throws(OutputError) -> Bool {
        guard let lineBase = line.baseAddress else { return false }
        text.removeAll(keepingCapacity: true)
        text.append(0)
        for (index, column) in plan.columns.enumerated() {
            let source = sourceIndex[index]
            guard let range = ranges[source] else { return false }
            if canonical[source] {
                // Bytes already in the form JSON.write prints: a string without escapes, an
                // integer of up to 15 digits, a short decimal fraction, true, false or null.
                let first = lineBase.load(fromByteOffset: range.lowerBound, as: UInt8.self)
                let asJSONText = !column.isKnown || column.type == .json || column.type == .text
                switch first {
                case UInt8(ascii: "\""):
                    if !column.isKnown || column.type == .text {
                        slots[index] = .line(start: range.lowerBound + 1, count: range.count - 2)
                        continue
                    }
                    if column.type == .json {
                        slots[index] = .line(start: range.lowerBound, count: range.count)
                        continue
                    }
                case UInt8(ascii: "n"):
                    guard !isKey[index] else { return false }
                    slots[index] = .null
                    continue
                case UInt8(ascii: "t"), UInt8(ascii: "f"):
                    if asJSONText {
                        slots[index] = .line(start: range.lowerBound, count: range.count)
                        continue
                    }
                    if column.type == .bool {
                        slots[index] = .int(first == UInt8(ascii: "t") ? 1 : 0)
                        continue
                    }
                default:
                    if asJSONText {
                        slots[index] = .line(start: range.lowerBound, count: range.count)
                        continue
                    }
                    let integral = !line[range].contains(UInt8(ascii: "."))
                    if integral, column.type == .int || column.type == .double {
                        var number = 0
                        var negative = false
                        for offset in range {
                            let byte = lineBase.load(fromByteOffset: offset, as: UInt8.self)
                            if byte == UInt8(ascii: "-") { negative = true } else { number = number * 10 + Int(byte &- 48) }
                        }
                        if negative { number = -number }
                        slots[index] = column.type == .int ? .int(number) : .double(Double(number))
                        continue
                    }
                }
            }
            guard let value = try? parser.parse(UnsafeRawBufferPointer(rebasing: line[range])),
                let slot = try? slot(for: value, in: column)
            else { return false }
            if isKey[index], case .null = slot { return false }
            slots[index] = slot
        }
        guard try insertRow(line: line, origin: origin, input: input) == nil else { return false }
        ordinal += 1
        return true
    }

    /// Deletes the rows whose first columns (a child table's parent key) hold one of `keys`,
    /// each converted to its column's type as a row's value is. SQLite deletes key by key
    /// through the parent-key index; PostgreSQL up to 10,000 keys a statement, as arrays.
    func deleteRows(keyedBy keys: [[Value]]) throws(OutputError) {
        guard let width = keys.first?.count, width > 0 else { return }
        let keyColumns = Array(plan.columns.prefix(width))
        switch connection {
        case .sqlite(let connection):
            do throws(SQLiteError) {
                let delete = try connection.prepare(
                    "DELETE FROM \(SQLiteConnection.quoted(plan.name)) WHERE "
                        + keyColumns.enumerated().map { "\(SQLiteConnection.quoted($1.name)) = ?\($0 + 1)" }.joined(separator: " AND "),
                    doing: "cannot delete from '\(plan.name)'")
                for key in keys {
                    var bound: [Value] = []
                    for (value, column) in zip(key, keyColumns) {
                        do throws(RecordError) { bound.append(try TableLoader.converted(value, in: column, table: plan.name)) } catch {
                            continue
                        }
                    }
                    guard bound.count == width else { continue }
                    for (index, value) in bound.enumerated() {
                        let parameter = Int32(index + 1)
                        switch value {
                        case .int(let i): delete.bind(parameter, i)
                        case .double(let d): delete.bind(parameter, d)
                        case .bool(let b): delete.bind(parameter, b ? 1 : 0)
                        case .string(let text): delete.bindText(parameter, text)
                        default: delete.bindText(parameter, JSON.compactString(value))
                        }
                    }
                    try delete.step(doing: "cannot delete from '\(plan.name)'")
                    delete.reset()
                }
            } catch {
                throw OutputError(path: databaseName, message: DatabaseTransactions.explain(error))
            }
        case .postgres(let connection):
            // One array per key column: `= ANY` (or `IN unnest`) keeps to the parent-key index
            // where a list of row values may scan the table once a statement.
            let types = keyColumns.map(PostgresSchema.columnType)
            let names = keyColumns.map { PostgresConnection.quoted($0.name) }
            let condition =
                width == 1
                ? "\(names[0]) = ANY($1::\(types[0])[])"
                : "(\(names.joined(separator: ", "))) IN (SELECT * FROM unnest("
                    + types.enumerated().map { "$\($0 + 1)::\($1)[]" }.joined(separator: ", ") + "))"
            var start = 0
            while start < keys.count {
                let part = keys[start..<min(keys.count, start + 10_000)]
                start += part.count
                var arrays = Array(repeating: [UInt8(ascii: "{")], count: width)
                var count = 0
                for key in part {
                    var texts: [String] = []
                    for (value, column) in zip(key, keyColumns) {
                        guard let converted = try? TableLoader.converted(value, in: column, table: plan.name) else { break }
                        texts.append(converted.stringValue ?? JSON.compactString(converted))
                    }
                    guard texts.count == width else { continue }
                    for (index, text) in texts.enumerated() {
                        if count > 0 { arrays[index].append(UInt8(ascii: ",")) }
                        TableLoader.appendArrayElement(text, into: &arrays[index])
                    }
                    count += 1
                }
                guard count > 0 else { continue }
                do throws(PostgresError) {
                    _ = try connection.query(
                        "DELETE FROM \(PostgresConnection.quotedTable(plan.name)) WHERE \(condition)",
                        arrays.map { String(decoding: $0 + [UInt8(ascii: "}")], as: UTF8.self) }, doing: "cannot delete from '\(plan.name)'"
                    )
                } catch {
                    throw OutputError(path: databaseName, message: error.message)
                }
            }
        }
    }

    /// Appends `text` as an element of a PostgreSQL array literal: quoted, with `"` and `\`
    /// escaped by a backslash.
    private static func appendArrayElement(_ text: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// What `value` becomes in `column`: converted to its type as `convert:` would (a value that
    /// cannot be is rejected), or, in a column nothing declared, text as it is and anything else
    /// as its JSON text.
    func slot(for value: Value, in column: TableColumn) throws(RecordError) -> Slot {
        if case .null = value { return .null }
        guard column.isKnown else {
            if case .string(let s) = value { return appendText(s) }
            return appendJSON(value)
        }
        switch (column.type, value) {
        case (.int, .int(let i)): return .int(i)
        case (.double, .double(let d)): return .double(d)
        case (.double, .int(let i)): return .double(Double(i))
        case (.bool, .bool(let b)): return .int(b ? 1 : 0)
        case (.text, .string(let s)): return appendText(s)
        case (.json, _): return appendJSON(value)
        default: break
        }
        switch try TableLoader.converted(value, in: column, table: plan.name) {
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .int(b ? 1 : 0)
        case .string(let s): return appendText(s)
        case let converted: return appendJSON(converted)
        }
    }

    /// `value` converted to `column`'s type (of table `table`) as `convert:` converts it, the
    /// one meaning of a column's type for rows and keys alike: a JSON column keeps the value,
    /// and a column nothing declared takes text as it is and anything else as its JSON text.
    static func converted(_ value: Value, in column: TableColumn, table: String) throws(RecordError) -> Value {
        if case .null = value { return .null }
        guard column.isKnown else {
            if case .string = value { return value }
            return .string(JSON.compactString(value))
        }
        let conversion: Conversion
        switch column.type {
        case .int: conversion = .int
        case .double: conversion = .double
        case .bool: conversion = .bool
        case .text: conversion = .string
        case .date: conversion = .date
        case .json: return value
        }
        do { return try conversion.apply(value, key: column.key) } catch {
            throw RecordError(
                code: "column-type", message: "column \(column.name) of table '\(table)' holds \(column.type.rawValue): \(error.message)")
        }
    }

    private func appendText(_ string: String) -> Slot {
        let start = text.count
        var string = string
        string.withUTF8 { text.append(contentsOf: $0) }
        return .text(start: start, count: text.count - start)
    }

    private func appendJSON(_ value: Value) -> Slot {
        let start = text.count
        JSON.write(value, into: &text)
        return .text(start: start, count: text.count - start)
    }
}
