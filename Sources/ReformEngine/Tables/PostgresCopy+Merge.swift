import ReformSDK

/// An upsert's merge: the temporary table's rows into the table, the latest of each key winning.
///
/// The temporary table has none of the table's checks, so a check, a foreign key or another unique
/// index refuses a row only here. The merge runs in a savepoint; when the server refuses a row,
/// it is rolled back, each key's earlier rows are deleted from the temporary table, and the rows
/// merge in parts of arrival order (halved at each refusal, doubled at each part that merges),
/// each in a savepoint, until each refused row is found alone. A refused row is set aside with
/// the server's message and where it came from (the temporary table's origin column), for the
/// dead-letter file; the others merge. When nothing is refused this costs one savepoint.
extension PostgresCopy {
    func merge() throws(PostgresError) {
        guard let staging else { return }
        let what = "cannot upsert the run's rows into '\(plan.name)'"
        try connection.execute("SAVEPOINT reform_merge", doing: what)
        do throws(PostgresError) {
            try connection.execute(mergeSQL(where: nil, latestOnly: true), doing: what)
        } catch  where error.isRowRefusal {
            try connection.execute("ROLLBACK TO SAVEPOINT reform_merge", doing: what)
            let key = plan.key.map(PostgresConnection.quoted)
            try connection.execute(
                "DELETE FROM \(staging.table) a USING \(staging.table) b WHERE "
                    + key.map { "a.\($0) = b.\($0)" }.joined(separator: " AND ") + " AND a.\(staging.arrival) < b.\(staging.arrival)",
                doing: what)
            try mergeInParts(upTo: arrival, what: what)
        }
        try connection.execute("RELEASE SAVEPOINT reform_merge", doing: what)
    }

    /// Merges the rows of arrival 1 through `last` (one per key by now) in parts, setting each row
    /// the server refuses aside in ``refused``.
    private func mergeInParts(upTo last: Int, what: String) throws(PostgresError) {
        guard let staging else { return }
        var first = 1
        var size = 1024
        while first <= last {
            let end = min(last, first + size - 1)
            try connection.execute("SAVEPOINT reform_part", doing: what)
            do throws(PostgresError) {
                try connection.execute(
                    mergeSQL(where: "\(staging.arrival) BETWEEN \(first) AND \(end)", latestOnly: false), doing: what)
                try connection.execute("RELEASE SAVEPOINT reform_part", doing: what)
                first = end + 1
                size = min(size * 2, 1 << 16)
            } catch  where error.isRowRefusal {
                try connection.execute("ROLLBACK TO SAVEPOINT reform_part", doing: what)
                try connection.execute("RELEASE SAVEPOINT reform_part", doing: what)
                guard first == end else {
                    size = max(1, (end - first + 1) / 2)
                    continue
                }
                if let row = try stagedRow(arrival: first, what: what) {
                    refused.append((row.origin, error.reason, row.text))
                }
                first += 1
            }
        }
    }

    /// `INSERT INTO table … SELECT … FROM the temporary table [WHERE condition] ON CONFLICT (key)
    /// DO UPDATE`, with only each key's latest row when `latestOnly`.
    private func mergeSQL(where condition: String?, latestOnly: Bool) -> String {
        guard let staging else { return "" }
        let columns = plan.columns.map { PostgresConnection.quoted($0.name) }.joined(separator: ", ")
        let key = plan.key.map(PostgresConnection.quoted).joined(separator: ", ")
        let others = plan.columns.filter { !plan.key.contains($0.name) }.map { PostgresConnection.quoted($0.name) }
        let update = others.isEmpty ? "NOTHING" : "UPDATE SET " + others.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(PostgresConnection.quotedTable(plan.name)) (\(columns)) "
            + "SELECT \(latestOnly ? "DISTINCT ON (\(key)) " : "")\(columns) FROM \(staging.table) "
            + (condition.map { "WHERE \($0) " } ?? "")
            + (latestOnly ? "ORDER BY \(key), \(staging.arrival) DESC " : "")
            + "ON CONFLICT (\(key)) DO \(update)"
    }

    /// The temporary table's row of `arrival`, as COPY text of the table's columns (as a batch's
    /// refused row is kept) and where it came from.
    private func stagedRow(arrival: Int, what: String) throws(PostgresError) -> (text: [UInt8], origin: TableLoader.RowOrigin)? {
        guard let staging else { return nil }
        let values = plan.columns.map { column -> String in
            let name = PostgresConnection.quoted(column.name)
            // As the row was sent: bools as 1 and 0.
            return column.isKnown && column.type == .bool ? "CASE WHEN \(name) THEN '1' ELSE '0' END" : "\(name)::text"
        }
        let rows = try connection.query(
            "SELECT \((values + [staging.origin]).joined(separator: ", ")) FROM \(staging.table) WHERE \(staging.arrival) = $1",
            [String(arrival)], doing: what)
        guard let row = rows.first, let originText = row.last ?? nil else { return nil }
        var text: [UInt8] = []
        for (index, value) in row.dropLast().enumerated() {
            if index > 0 { text.append(9) }
            guard let value else {
                text.append(contentsOf: PostgresCopy.null)
                continue
            }
            var bytes = Array(value.utf8)
            _ = bytes.withUnsafeMutableBytes { PostgresCopy.appendEscaped(UnsafeRawBufferPointer($0), json: false, into: &text) }
        }
        return (text, origin(parsing: originText, arrival: arrival))
    }

    /// Where a row came from, as its origin column holds it: `manager,sequence,line,page,input,direct`.
    static func appendOrigin(_ origin: TableLoader.RowOrigin, into buffer: inout [UInt8]) {
        for (index, number) in [
            origin.origin.manager.index, origin.origin.sequence, origin.origin.line, origin.origin.page, origin.input,
            origin.direct ? 1 : 0,
        ].enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            appendInt(number, into: &buffer)
        }
    }

    /// The origin ``appendOrigin(_:into:)`` wrote, of the row that arrived `arrival`th (the row's
    /// number among those handed to the database is one less).
    private func origin(parsing text: String, arrival: Int) -> TableLoader.RowOrigin {
        let numbers = text.split(separator: ",").map { Int($0) ?? 0 }
        let number = { (index: Int) in index < numbers.count ? numbers[index] : 0 }
        let manager = ManagerRef(index: number(0), name: managerNames[number(0)] ?? "")
        return TableLoader.RowOrigin(
            origin: Origin(manager: manager, sequence: number(1), line: number(2), page: number(3)), input: number(4),
            direct: number(5) == 1, ordinal: arrival - 1)
    }
}
