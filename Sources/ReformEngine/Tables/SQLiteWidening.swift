/// Giving columns of an SQLite table a wider declared type (`schema: evolve` with `widen: true`).
///
/// SQLite cannot change a column's type in place, so the table is rebuilt as its documentation
/// says (the "12 steps"), inside the run's transaction: the table's own `CREATE TABLE` with only
/// those columns' types changed, its rows copied (each value takes the new column's affinity:
/// an integer becomes a real, a number text), the old table dropped, the new one renamed, and the
/// table's indexes and triggers made again from their own SQL, and an `AUTOINCREMENT` counter
/// kept. Its constraints, defaults and collations stay as they were written.
enum SQLiteWidening {
    /// Rebuilds `table` on `connection` with each column of `types` (name → new declared type).
    static func widen(_ table: String, to types: [String: String], on connection: SQLiteConnection) throws(SQLiteError) {
        let read = try connection.prepare(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE", doing: "cannot read the schema")
        read.bindText(1, table)
        guard try read.step(doing: "cannot read the schema") == .row else {
            throw SQLiteError(code: 1, message: "cannot widen columns of '\(table)': the table is gone")
        }
        let create = read.text(0)
        // A statement in the middle of its rows holds the table: DROP TABLE would be refused.
        read.reset()
        guard let body = retyped(create, types: types) else {
            throw SQLiteError(
                code: 1,
                message: "cannot widen columns of '\(table)' (\(types.keys.sorted().joined(separator: ", "))): Reform could not read its "
                    + "CREATE TABLE statement to change them; change their types yourself, or leave widen: true out")
        }
        let related = try connection.prepare(
            "SELECT sql FROM sqlite_master WHERE tbl_name = ?1 COLLATE NOCASE AND type IN ('index', 'trigger') AND sql IS NOT NULL "
                + "ORDER BY type = 'trigger'",
            doing: "cannot read the schema")
        related.bindText(1, table)
        var again: [String] = []
        while try related.step(doing: "cannot read the schema") == .row { again.append(related.text(0)) }
        related.reset()
        // An AUTOINCREMENT table's counter goes with the old table: kept, so ids are never reused.
        var sequence: Int?
        if try connection.hasTable("sqlite_sequence") {
            let read = try connection.prepare(
                "SELECT seq FROM sqlite_sequence WHERE name = ?1 COLLATE NOCASE", doing: "cannot read the schema")
            read.bindText(1, table)
            if try read.step(doing: "cannot read the schema") == .row { sequence = read.int(0) }
            read.reset()
        }
        let quoted = SQLiteConnection.quoted(table)
        let scratch = SQLiteConnection.quoted("_reform_widen_" + table)
        let rowid = create.uppercased().contains("WITHOUT ROWID") ? "" : "rowid, "
        let doing = "cannot widen columns of '\(table)'"
        try connection.execute("CREATE TABLE \(scratch) \(body)", doing: doing)
        try connection.execute(
            "INSERT INTO \(scratch) (\(rowid)\(try columnList(table, on: connection))) SELECT \(rowid)* FROM \(quoted)", doing: doing)
        try connection.execute("DROP TABLE \(quoted)", doing: doing)
        // The old way: views and triggers that name the table are not re-read while it is gone.
        try connection.execute("PRAGMA legacy_alter_table = ON", doing: doing)
        try connection.execute("ALTER TABLE \(scratch) RENAME TO \(quoted)", doing: doing)
        try connection.execute("PRAGMA legacy_alter_table = OFF", doing: doing)
        for sql in again { try connection.execute(sql, doing: doing) }
        if let sequence {
            for sql in [
                "UPDATE sqlite_sequence SET seq = max(seq, ?2) WHERE name = ?1",
                "INSERT INTO sqlite_sequence (name, seq) SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?1)",
            ] {
                let keep = try connection.prepare(sql, doing: doing)
                keep.bindText(1, table)
                keep.bind(2, sequence)
                try keep.step(doing: doing)
            }
        }
    }

    /// The quoted names of the scratch copy's columns: the table's, in order (the copy has the
    /// same columns).
    private static func columnList(_ table: String, on connection: SQLiteConnection) throws(SQLiteError) -> String {
        try TableLoader.columns(of: table, on: connection).map { SQLiteConnection.quoted($0.name) }.joined(separator: ", ")
    }

    /// The part of `create` from its column list on, with the declared type of each column of
    /// `types` replaced; `nil` when a column is not found or the statement cannot be read.
    static func retyped(_ create: String, types: [String: String]) -> String? {
        let text = Array(create.utf8)
        let scanner = SQLScanner(text: text)
        guard let open = scanner.firstTopLevel(UInt8(ascii: "(")) else { return nil }
        var edits: [(range: Range<Int>, type: String)] = []
        var remaining = Dictionary(uniqueKeysWithValues: types.map { ($0.key.lowercased(), $0.value) })
        for item in scanner.items(after: open) {
            var probe = SQLScanner(text: text, range: item)
            guard let name = probe.nextToken() else { continue }
            let bare = SQLScanner.unquoted(text, name).lowercased()
            if ["constraint", "primary", "unique", "check", "foreign"].contains(bare) && text[name.lowerBound] != UInt8(ascii: "\"") {
                continue
            }
            guard let type = remaining.removeValue(forKey: bare) else { continue }
            // The type runs from after the name up to a constraint's keyword or the item's end.
            var typeEnd = name.upperBound
            while let token = probe.nextToken() {
                let word = String(decoding: text[token], as: UTF8.self).uppercased()
                if SQLScanner.constraintWords.contains(word) { break }
                typeEnd = token.upperBound
            }
            edits.append((name.upperBound..<typeEnd, " " + type))
        }
        guard remaining.isEmpty else { return nil }
        var result = text
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            result.replaceSubrange(edit.range, with: Array(edit.type.utf8))
        }
        return String(decoding: result[open...], as: UTF8.self)
    }
}

/// A small reader of SQL text: quoted names and strings, parentheses, and the items of a list.
private struct SQLScanner {
    let text: [UInt8]
    var position: Int
    let end: Int

    /// The keywords that start a column constraint (the declared type ends before them).
    static let constraintWords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS",
    ]

    init(text: [UInt8], range: Range<Int>? = nil) {
        self.text = text
        position = range?.lowerBound ?? 0
        end = range?.upperBound ?? text.count
    }

    /// Where a quoted part that starts at `start` ends (just past its closing quote), or `nil`
    /// when `start` does not open one.
    private func quoteEnd(at start: Int) -> Int? {
        let close: UInt8
        switch text[start] {
        case UInt8(ascii: "\""): close = UInt8(ascii: "\"")
        case UInt8(ascii: "'"): close = UInt8(ascii: "'")
        case UInt8(ascii: "`"): close = UInt8(ascii: "`")
        case UInt8(ascii: "["): close = UInt8(ascii: "]")
        default: return nil
        }
        var index = start + 1
        while index < end {
            if text[index] == close {
                // A doubled quote is the quote itself.
                if close != UInt8(ascii: "]"), index + 1 < end, text[index + 1] == close {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return end
    }

    /// The first `byte` outside quotes and parentheses.
    func firstTopLevel(_ byte: UInt8) -> Int? {
        var index = position
        while index < end {
            if let after = quoteEnd(at: index) {
                index = after
                continue
            }
            if text[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// The items of the parenthesized list opening at `open`: the ranges between its top-level commas.
    func items(after open: Int) -> [Range<Int>] {
        var items: [Range<Int>] = []
        var depth = 0
        var start = open + 1
        var index = open + 1
        while index < end {
            if let after = quoteEnd(at: index) {
                index = after
                continue
            }
            switch text[index] {
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                if depth == 0 {
                    items.append(start..<index)
                    return items
                }
                depth -= 1
            case UInt8(ascii: ","):
                if depth == 0 {
                    items.append(start..<index)
                    start = index + 1
                }
            default: break
            }
            index += 1
        }
        return items
    }

    /// The next token: a quoted part, a word, a parenthesized group, or one other character;
    /// `nil` at the end.
    mutating func nextToken() -> Range<Int>? {
        while position < end, [9, 10, 13, 32].contains(text[position]) { position += 1 }
        guard position < end else { return nil }
        let start = position
        if let after = quoteEnd(at: start) {
            position = after
        } else if text[start] == UInt8(ascii: "(") {
            var depth = 0
            while position < end {
                if let after = quoteEnd(at: position) {
                    position = after
                    continue
                }
                if text[position] == UInt8(ascii: "(") { depth += 1 }
                if text[position] == UInt8(ascii: ")") {
                    depth -= 1
                    if depth == 0 {
                        position += 1
                        break
                    }
                }
                position += 1
            }
        } else if SQLScanner.isWordByte(text[start]) {
            while position < end, SQLScanner.isWordByte(text[position]) { position += 1 }
        } else {
            position += 1
        }
        return start..<position
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95 || byte >= 128
    }

    /// The name a token stands for: a quoted name without its quotes (doubled quotes as one).
    static func unquoted(_ text: [UInt8], _ token: Range<Int>) -> String {
        let raw = String(decoding: text[token], as: UTF8.self)
        guard let first = raw.first, "\"`[".contains(first), raw.count >= 2 else { return raw }
        let inner = String(raw.dropFirst().dropLast())
        return first == "[" ? inner : inner.replacing(String(first) + String(first), with: String(first))
    }
}
