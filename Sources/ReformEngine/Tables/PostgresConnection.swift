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
    /// back as the UTC ISO 8601 text `convert: date` makes.
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
        try execute("SET TIME ZONE 'UTC'", doing: "cannot set the session's time zone")
    }

    deinit {
        // No batch can be in flight: its sending closure holds the connection until it is done.
        // (Waiting here could deadlock: the last reference may go on the sending thread itself.)
        pq.finish(handle)
    }

    /// A batch of COPY data on the sending thread, and how it went.
    private final class Send: @unchecked Sendable {
        var data: [UInt8]
        var failure: PostgresError?
        init(_ data: [UInt8]) { self.data = data }
    }

    private let sender = DispatchQueue(label: "reform.postgres.copy")
    private var inFlight: (done: DispatchGroup, send: Send)?

    /// Sends `data` (rows in COPY's text format) with `copy` on the connection's sending thread, so
    /// that the caller encodes the next batch while the server loads this one (sending in line, the
    /// two took turns: the run waited for the server after every batch). Returns an empty array
    /// to encode into — the batch before's storage. A failure of this batch is thrown by the next
    /// call on the connection.
    func copyInBackground(_ copy: String, data: [UInt8], doing what: String) throws(PostgresError) -> [UInt8] {
        var spare = try settle()
        let send = Send(data)
        let done = DispatchGroup()
        sender.async(group: done) { [self] in
            let result: Result<Void, PostgresError> = send.data.withUnsafeBytes { bytes in
                do throws(PostgresError) {
                    try self.copy(copy, data: bytes, doing: what)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            if case .failure(let error) = result { send.failure = error }
        }
        inFlight = (done, send)
        spare.removeAll(keepingCapacity: true)
        return spare
    }

    /// Waits for the batch in flight, if any; throws its failure, else returns its storage.
    @discardableResult
    private func settle() throws(PostgresError) -> [UInt8] {
        guard let (done, send) = inFlight else { return [] }
        inFlight = nil
        done.wait()
        if let failure = send.failure { throw failure }
        return send.data
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
    func query(_ sql: String, _ parameters: [String?] = [], doing what: @autoclosure () -> String) throws(PostgresError) -> [[String?]] {
        try endCopy()
        let result = PostgresConnection.withCStrings(parameters) { pointers in
            pq.execParams(handle, sql, Int32(pointers.count), nil, pointers, nil, nil, 0)
        }
        defer { pq.clear(result) }
        try check(result, doing: what())
        return rows(of: result)
    }

    /// The COPY in progress (its statement and what it loads, for messages), if any.
    private var openCopy: (sql: String, what: String)?

    /// How many temporary tables ``temporaryTableName()`` named.
    private var temporaryTables = 0

    /// A temporary table's name no other of this session's takes: numbered, not made from a
    /// table's name, which PostgreSQL would cut at 63 bytes (two long names alike in their start
    /// would then be one table).
    func temporaryTableName() -> String {
        temporaryTables += 1
        return "_reform_upsert_\(temporaryTables)"
    }

    /// Sends `data` (rows in COPY's text format) with `copy` (`COPY t (…) FROM STDIN`). The
    /// COPY stays open while the same statement sends more, so the server loads one batch while
    /// the next is made; another COPY, any other statement, and ``endCopy()`` end it (tables of
    /// one database take turns on its connection).
    private func copy(_ copy: String, data: UnsafeRawBufferPointer, doing what: @autoclosure () -> String) throws(PostgresError) {
        if openCopy?.sql != copy {
            try endOpenCopy()
            let started = pq.exec(handle, copy)
            guard pq.resultStatus(started) == PGRES_COPY_IN else {
                defer { pq.clear(started) }
                try check(started, doing: what())
                return
            }
            pq.clear(started)
            openCopy = (copy, what())
        }
        guard let base = data.baseAddress, !data.isEmpty else { return }
        if pq.putCopyData(handle, base.assumingMemoryBound(to: CChar.self), Int32(data.count)) != 1 {
            // The server refused the COPY (a bad row): its message comes with the end.
            try endOpenCopy()
            throw PostgresError(sqlState: "", message: "\(what()): \(url.redact(PostgresConnection.trimmed(pq.errorMessage(handle))))")
        }
    }

    /// Ends the COPY in progress, if any, and throws the server's message when it failed.
    func endCopy() throws(PostgresError) {
        try settle()
        try endOpenCopy()
    }

    /// Ends the COPY in progress, if any (on the thread that sends: the run's, or the sending
    /// thread inside ``copy(_:data:doing:)``, which must not wait for itself).
    private func endOpenCopy() throws(PostgresError) {
        guard let open = openCopy else { return }
        openCopy = nil
        _ = pq.putCopyEnd(handle, nil)
        // The COPY's own result, then the one that ends the command.
        var failure: PostgresError?
        while let result = pq.getResult(handle) {
            do throws(PostgresError) { try check(result, doing: open.what) } catch { failure = failure ?? error }
            pq.clear(result)
        }
        if let failure { throw failure }
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
            throw PostgresError(sqlState: state, message: "\(what): \(url.redact(reason))")
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
