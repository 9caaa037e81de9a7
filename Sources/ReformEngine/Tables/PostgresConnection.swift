import CLibPQ
import Dispatch
import ReformSystem

/// One connection to a PostgreSQL server: statements, queries with text parameters, and the
/// COPY protocol for loading rows.
///
/// A thin layer over libpq (the system `libpq`). Every message it makes has the URL's secrets
/// hidden (``PostgresURL/redact(_:)``).
///
/// `@unchecked Sendable`: one thread uses it at a time — the run's, or the sending thread while a
/// batch of COPY data is in flight (``copyInBackground(_:data:doing:)``); every other call waits
/// for that batch first (``settle()``).
final class PostgresConnection: @unchecked Sendable {
    /// The connection string with its secrets hidden (for messages).
    let displayName: String
    private let url: PostgresURL
    private let handle: OpaquePointer
    private let pq: LibPQ

    /// Connects to `url`; the session's time zone is UTC, so that date-times are written and read
    /// back as the UTC ISO 8601 text `convert: date` makes, and the server sends no notices.
    init(url: PostgresURL) throws(PostgresError) {
        self.url = url
        displayName = url.displayName
        pq = try LibPQ.shared.get()
        guard let connection = pq.connectdb(url.connectionString) else {
            throw PostgresError(sqlState: "", message: "cannot connect to \(url.displayName): libpq is out of memory")
        }
        handle = connection
        guard pq.status(connection) == CONNECTION_OK else {
            let reason = url.redact(PostgresConnection.trimmed(pq.errorMessage(connection)))
            throw PostgresError(
                sqlState: "08006",
                message: "cannot connect to \(url.displayName): \(reason) (is the server running, and the URL's host, port, "
                    + "user, password and database right?)")
        }
        // Notices (`relation … already exists, skipping`) would go to standard error through
        // libpq's default notice processor, past --quiet; warnings still do.
        try execute("SET TIME ZONE 'UTC'; SET client_min_messages TO warning", doing: "cannot set up the session")
    }

    deinit {
        // No batch can be in flight: its sending closure holds the connection until it is done.
        // (Waiting here could deadlock: the last reference may go on the sending thread itself.)
        pq.finish(handle)
    }

    /// A batch of rows in COPY's text format, loaded on the connection's sending thread
    /// (``copyInBackground(_:data:doing:)``), and how it went: read it once the connection has
    /// settled (any later call on it).
    final class CopyBatch: @unchecked Sendable {
        /// The rows, each ended by a newline.
        fileprivate(set) var data: [UInt8]
        /// The rows the server refused (a value out of a column's range, a unique index, a check
        /// constraint): the others are loaded.
        fileprivate(set) var refused: [RefusedRow] = []
        fileprivate var failure: PostgresError?
        fileprivate init(_ data: [UInt8]) { self.data = data }

        /// The bytes of the row at `range`, without its newline.
        fileprivate func row(_ range: Range<Int>) -> [UInt8] {
            Array(data[range.lowerBound..<max(range.lowerBound, range.upperBound - 1)])
        }
    }

    /// A row of a ``CopyBatch`` the server refused.
    struct RefusedRow: Sendable {
        /// The row's position in its batch (0-based).
        let index: Int
        /// The row as sent, in COPY's text format (without its newline).
        let row: [UInt8]
        /// The server's message (and its detail).
        let reason: String
    }

    private let sender = DispatchQueue(label: "reform.postgres.copy")
    private var inFlight: (done: DispatchGroup, batch: CopyBatch)?

    /// Loads `data` (rows in COPY's text format) with `copy` on the connection's sending thread, so
    /// that the caller encodes the next batch while the server loads this one (sending in line, the
    /// two took turns: the run waited for the server after every batch). Returns an empty array
    /// to encode into — the batch before's storage — and the batch, whose refused rows are known
    /// once the connection has settled. A failure of this batch as a whole is thrown by the next
    /// call on the connection.
    func copyInBackground(_ copy: String, data: [UInt8], doing what: String) throws(PostgresError) -> (
        spare: [UInt8], batch: CopyBatch
    ) {
        var spare = try settle()
        let batch = CopyBatch(data)
        let done = DispatchGroup()
        sender.async(group: done) { [self] in load(copy, batch, doing: what) }
        inFlight = (done, batch)
        spare.removeAll(keepingCapacity: true)
        return (spare, batch)
    }

    /// Whether `batch` may still be loading (its refused rows are not known yet).
    func isLoading(_ batch: CopyBatch) -> Bool { inFlight?.batch === batch }

    /// Waits for the batch in flight, if any; throws its failure, else returns its storage.
    @discardableResult
    private func settle() throws(PostgresError) -> [UInt8] {
        guard let (done, batch) = inFlight else { return [] }
        inFlight = nil
        done.wait()
        if let failure = batch.failure { throw failure }
        // Moved out, so that the storage is the caller's alone (reused without a copy).
        defer { batch.data = [] }
        return batch.data
    }

    /// Loads `batch` inside a savepoint, so that a row the server refuses costs that row, not the
    /// run's transaction: the savepoint is rolled back, the row the server's context names
    /// (`COPY t, line N`) is set aside, the rows before it are sent again, then the rest; when the
    /// server names no line (a constraint checked at the statement's end), those rows are sent one
    /// at a time. After a refusal the rest goes in smaller parts (halved at each refusal, doubled at
    /// each part that loads), so a batch the server refuses row after row (an append of rows a
    /// unique index already has) costs a COPY per row, not the batch sent again per row. Nothing
    /// refused: one COPY, a savepoint and its release.
    private func load(_ copy: String, _ batch: CopyBatch, doing what: String) {
        do throws(PostgresError) {
            try statement("SAVEPOINT reform_batch", doing: what)
            let failure = batch.data.withUnsafeBytes { send(copy, [$0], doing: what) }
            guard let failure else { return try statement("RELEASE SAVEPOINT reform_batch", doing: what) }
            guard failure.isRowRefusal else { throw failure }
            try statement("ROLLBACK TO SAVEPOINT reform_batch", doing: what)
            let rows = PostgresConnection.rows(of: batch.data)
            var part = rows.count
            // Ranges of `rows` still to load, the next on top.
            var pending: [Range<Int>] = []
            var refusal: (range: Range<Int>, failure: PostgresError)? = (0..<rows.count, failure)

            /// Sends up to `part` rows of `range` in a savepoint; the rest of it goes back on
            /// `pending`, a refusal into `refusal`.
            func loadPart(_ range: Range<Int>) throws(PostgresError) {
                let take = range.lowerBound..<min(range.upperBound, range.lowerBound + part)
                if take.upperBound < range.upperBound { pending.append(take.upperBound..<range.upperBound) }
                try statement("SAVEPOINT reform_part", doing: what)
                let failure = batch.data.withUnsafeBytes { bytes in
                    send(copy, rows[take].map { UnsafeRawBufferPointer(rebasing: bytes[$0.range]) }, doing: what)
                }
                guard let failure else {
                    part = min(part * 2, rows.count)
                    return try statement("RELEASE SAVEPOINT reform_part", doing: what)
                }
                guard failure.isRowRefusal else { throw failure }
                try statement("ROLLBACK TO SAVEPOINT reform_part", doing: what)
                refusal = (take, failure)
            }

            while true {
                if let (range, failure) = refusal {
                    refusal = nil
                    if let line = failure.copyLine, line >= 1, line <= range.count {
                        let refused = range.lowerBound + line - 1
                        batch.refused.append(
                            RefusedRow(index: rows[refused].index, row: batch.row(rows[refused].range), reason: failure.reason))
                        if refused + 1 < range.upperBound { pending.append((refused + 1)..<range.upperBound) }
                        if range.lowerBound < refused { pending.append(range.lowerBound..<refused) }
                        part = max(1, min(part, line) / 2)
                    } else {
                        try loadOneByOne(copy, batch, Array(rows[range]), doing: what)
                    }
                }
                guard let next = pending.popLast() else { break }
                try loadPart(next)
            }
            try statement("RELEASE SAVEPOINT reform_batch", doing: what)
        } catch {
            batch.failure = error
        }
    }

    /// Loads `rows` of `batch` one COPY each, each in a savepoint: the rows the server refuses
    /// are set aside.
    private func loadOneByOne(_ copy: String, _ batch: CopyBatch, _ rows: [(index: Int, range: Range<Int>)], doing what: String)
        throws(PostgresError)
    {
        for row in rows {
            try statement("SAVEPOINT reform_row", doing: what)
            let failure = batch.data.withUnsafeBytes { bytes in
                send(copy, [UnsafeRawBufferPointer(rebasing: bytes[row.range])], doing: what)
            }
            guard let failure else {
                try statement("RELEASE SAVEPOINT reform_row", doing: what)
                continue
            }
            guard failure.isRowRefusal else { throw failure }
            try statement("ROLLBACK TO SAVEPOINT reform_row", doing: what)
            batch.refused.append(RefusedRow(index: row.index, row: batch.row(row.range), reason: failure.reason))
        }
    }

    /// The rows of COPY text `data` (each ends with a newline: one inside a value is escaped).
    private static func rows(of data: [UInt8]) -> [(index: Int, range: Range<Int>)] {
        var rows: [(index: Int, range: Range<Int>)] = []
        var start = 0
        for (offset, byte) in data.enumerated() where byte == 10 {
            rows.append((rows.count, start..<(offset + 1)))
            start = offset + 1
        }
        return rows
    }

    /// One COPY of `pieces`: its failure, or `nil` when every row loaded.
    private func send(_ copy: String, _ pieces: [UnsafeRawBufferPointer], doing what: String) -> PostgresError? {
        let started = pq.exec(handle, copy)
        guard pq.resultStatus(started) == PGRES_COPY_IN else {
            defer { pq.clear(started) }
            do throws(PostgresError) { try check(started, doing: what) } catch { return error }
            return PostgresError(sqlState: "", message: "\(what): the server did not start the COPY")
        }
        pq.clear(started)
        for piece in pieces {
            guard let base = piece.baseAddress, !piece.isEmpty else { continue }
            // A refused COPY says so with its end, below.
            if pq.putCopyData(handle, base.assumingMemoryBound(to: CChar.self), Int32(piece.count)) != 1 { break }
        }
        _ = pq.putCopyEnd(handle, nil)
        var failure: PostgresError?
        while let result = pq.getResult(handle) {
            do throws(PostgresError) { try check(result, doing: what) } catch { failure = failure ?? error }
            pq.clear(result)
        }
        return failure
    }

    /// Runs `sql` on the sending thread (no batch is waited for: it is the batch).
    private func statement(_ sql: String, doing what: String) throws(PostgresError) {
        let result = pq.exec(handle, sql)
        defer { pq.clear(result) }
        try check(result, doing: what)
    }

    /// Waits for the batch in flight, if any, and throws its failure.
    func endCopy() throws(PostgresError) {
        try settle()
    }

    /// Runs `sql` (one or more statements without results).
    func execute(_ sql: String, doing what: @autoclosure () -> String) throws(PostgresError) {
        try endCopy()
        let result = pq.exec(handle, sql)
        defer { pq.clear(result) }
        try check(result, doing: what())
    }

    /// Runs `sql` with `$1`… bound to `parameters` (as text) and returns its rows, each value as
    /// text (`nil`: NULL).
    /// Whether the table `name` is there: a name as `to_regclass` reads it (quoted where it
    /// needs to be, ``quotedTable(_:)``; unqualified names in the search path).
    func hasTable(_ name: String) throws(PostgresError) -> Bool {
        try query("SELECT to_regclass($1) IS NOT NULL", [name], doing: "cannot read the schema").first?.first == "t"
    }

    func query(_ sql: String, _ parameters: [String?] = [], doing what: @autoclosure () -> String) throws(PostgresError) -> [[String?]] {
        try endCopy()
        let result = PostgresConnection.withCStrings(parameters) { pointers in
            pq.execParams(handle, sql, Int32(pointers.count), nil, pointers, nil, nil, 0)
        }
        defer { pq.clear(result) }
        try check(result, doing: what())
        return rows(of: result)
    }

    /// How many temporary tables ``temporaryTableName()`` named.
    private var temporaryTables = 0

    /// A temporary table's name no other of this session's takes: numbered, not made from a
    /// table's name, which PostgreSQL would cut at 63 bytes (two long names alike in their start
    /// would then be one table).
    func temporaryTableName() -> String {
        temporaryTables += 1
        return "_reform_upsert_\(temporaryTables)"
    }

    /// Sends `sql` and reads its rows one at a time (``nextRow()``), as libpq's single-row mode
    /// delivers them: a table of any size is read in constant memory.
    func startRows(_ sql: String, doing what: @autoclosure () -> String) throws(PostgresError) {
        try settle()
        guard pq.sendQuery(handle, sql) == 1 else {
            throw PostgresError(sqlState: "", message: "\(what()): \(url.redact(PostgresConnection.trimmed(pq.errorMessage(handle))))")
        }
        _ = pq.setSingleRowMode(handle)
    }

    /// One row of the query ``startRows(_:doing:)`` sent: its values as text and each column's
    /// type (an OID), or `nil` after the last.
    func nextRow(doing what: @autoclosure () -> String) throws(PostgresError) -> (values: [String?], types: [UInt32])? {
        guard let result = pq.getResult(handle) else { return nil }
        defer { pq.clear(result) }
        if pq.resultStatus(result) == PGRES_TUPLES_OK {
            // The end of the rows; the next result is the end of the query.
            while let rest = pq.getResult(handle) { pq.clear(rest) }
            return nil
        }
        try check(result, doing: what())
        let types = (0..<pq.nfields(result)).map { UInt32(pq.ftype(result, $0)) }
        return (rows(of: result).first ?? [], types)
    }

    /// Whether the connection is inside a transaction (a failed one included).
    var inTransaction: Bool {
        let status = pq.transactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Quotes `name` as an SQL identifier (`"a ""b"""`).
    static func quoted(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }

    /// A table's name as SQL: `analytics.issues` (a schema, a dot, a table) as
    /// `"analytics"."issues"`, any other name as one quoted identifier.
    static func quotedTable(_ name: String) -> String {
        guard let (schema, table) = TablePlan.schemaAndTable(name) else { return quoted(name) }
        return quoted(schema) + "." + quoted(table)
    }

    /// Quotes `text` as an SQL string literal (`'it''s'`).
    static func literal(_ text: String) -> String {
        "'" + text.replacing("'", with: "''") + "'"
    }

    private func check(_ result: OpaquePointer?, doing what: String) throws(PostgresError) {
        let status = result.map { pq.resultStatus($0) } ?? PGRES_FATAL_ERROR
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE, PGRES_COPY_IN: return
        default:
            let state = result.flatMap { pq.resultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
            let message = result.map { pq.resultErrorMessage($0) }.map(PostgresConnection.trimmed) ?? ""
            let reason = message.isEmpty ? PostgresConnection.trimmed(pq.errorMessage(handle)) : message
            let library = pq
            let field = { (code: Character) in
                result.flatMap { library.resultErrorField($0, Int32(code.asciiValue ?? 0)) }.map { String(cString: $0) } ?? ""
            }
            let detail = field("D")
            throw PostgresError(
                sqlState: state, message: "\(what): \(url.redact(reason))",
                reason: url.redact(field("M") + (detail.isEmpty ? "" : " (\(detail))")), context: field("W"))
        }
    }

    private func rows(of result: OpaquePointer?) -> [[String?]] {
        guard let result else { return [] }
        let columns = pq.nfields(result)
        return (0..<pq.ntuples(result)).map { row in
            (0..<columns).map { column in
                pq.getisnull(result, row, column) == 1 ? nil : pq.getvalue(result, row, column).map { String(cString: $0) }
            }
        }
    }

    /// libpq's message without `ERROR:  ` and trailing newlines, its lines joined.
    private static func trimmed(_ message: UnsafeMutablePointer<CChar>?) -> String {
        guard let message else { return "" }
        var text = String(cString: message)
        for prefix in ["ERROR:  ", "FATAL:  "] where text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
        return text.split(separator: "\n").map { $0.trimmingPrefix(" ") }.map(String.init).joined(separator: "; ")
    }

    private static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}
