import ReformEngine
import ReformSDK
import ReformSystem

/// What changed in the files a run wrote since the last run of the same run: per file, the
/// records (or, in a file that is not NDJSON, the lines) added and removed, and with a `key`, the
/// records whose key stayed but whose value changed; per table of an SQLite database (a `sqlite:`
/// output's, its child tables too), the rows, as records.
///
/// Without a key, records are compared whole, as a multiset: a record the new file has one more
/// time than the old is added, one fewer removed, whatever their order. With a key (a path such as
/// `id` or `kOrderKeyID`), records are matched by its value: new keys are added, gone keys removed,
/// and a key whose record differs is changed (old and new shown).
enum StudioChanges {
    /// How many of each kind are shown (all are counted).
    static let shown = 20
    /// The most bytes of a file compared.
    static let maxBytes = 32 << 20

    /// The changes between the files under `old` and under `new` (folders of two runs), keyed by
    /// `key` when given.
    static func compare(old: String, new: String, key: String?) throws(StudioError) -> Value {
        var path: ValuePath?
        if let key, !key.isEmpty {
            do { path = try ValuePath(parsing: key) } catch {
                throw StudioError(status: 400, "the key '\(key)' is not a path: \(error.message)")
            }
        }
        let before = files(under: old)
        let after = files(under: new)
        var names = after
        for name in before where !names.contains(name) { names.append(name) }
        return .array(
            names.flatMap { name in
                let oldPath = before.contains(name) ? FilePaths.resolve(name, against: old) : nil
                let newPath = after.contains(name) ? FilePaths.resolve(name, against: new) : nil
                if [oldPath, newPath].contains(where: { $0.map(isDatabase) ?? false }) {
                    return compare(database: name, old: oldPath, new: newPath, key: path)
                }
                return [compare(file: name, old: oldPath, new: newPath, key: path)]
            })
    }

    /// Whether the file at `path` is an SQLite database (a `sqlite:` output's).
    static func isDatabase(_ path: String) -> Bool {
        ((try? FilePaths.readAll(path, limit: 16)) ?? []).starts(with: Array("SQLite format 3\u{0}".utf8))
    }

    /// The most rows of a table compared.
    static let maxRows = 200_000

    /// An SQLite database's changes, table by table (`out/l.db#listings`, and child tables): its
    /// rows, read as `reform cat` reads them, compared as a file's records are.
    static func compare(database file: String, old: String?, new: String?, key: ValuePath?) -> [Value] {
        func tables(_ path: String?) -> [String] {
            guard let path, isDatabase(path) else { return [] }
            return (try? TableReader.sqliteTables(at: path)) ?? []
        }
        let before = tables(old)
        let after = tables(new)
        func rows(_ path: String?, _ table: String, among tables: [String]) throws(InputError) -> [Value] {
            guard let path, tables.contains(table), let address = TableAddress(TableAddress.scheme + path + "#" + table) else {
                return []
            }
            let reader = try TableReader(address)
            var rows: [Value] = []
            while rows.count < maxRows, let row = try reader.next() { rows.append(row) }
            return rows
        }
        var names = after
        for name in before where !names.contains(name) { names.append(name) }
        return names.map { table in
            var object = Object()
            object["path"] = .string(file + "#" + table)
            if !before.contains(table) { object["only"] = .string("new") }
            if !after.contains(table) { object["only"] = .string("old") }
            object["kind"] = .string("records")
            let oldRows: [Value]
            let newRows: [Value]
            do throws(InputError) {
                oldRows = try rows(old, table, among: before)
                newRows = try rows(new, table, among: after)
            } catch {
                object["error"] = .string(error.message)
                return .object(object)
            }
            for member in records(old: oldRows, new: newRows, key: key).members { object[member.key] = member.value }
            return .object(object)
        }
    }

    /// The files under `folder` (a run's), as paths below it, sorted; symbolic links are not followed.
    static func files(under folder: String, prefix: String = "") -> [String] {
        var found: [String] = []
        for name in (FilePaths.contents(of: folder) ?? []).sorted() where !name.hasPrefix(".") {
            let path = FilePaths.resolve(name, against: folder)
            if FileKind.of(path) == .directory {
                found += files(under: path, prefix: prefix + name + "/")
            } else {
                found.append(prefix + name)
            }
        }
        return found
    }

    /// One file's changes: `old` or `new` is `nil` when the file is only in one run.
    static func compare(file: String, old: String?, new: String?, key: ValuePath?) -> Value {
        var object = Object()
        object["path"] = .string(file)
        let oldBytes: [UInt8]
        let newBytes: [UInt8]
        do {
            oldBytes = try old.map(contents(of:)) ?? []
            newBytes = try new.map(contents(of:)) ?? []
        } catch {
            object["error"] = .string(error.message)
            return .object(object)
        }
        if old == nil { object["only"] = .string("new") }
        if new == nil { object["only"] = .string("old") }
        // A binary file (not a database): only whether it changed.
        if isBinary(oldBytes) || isBinary(newBytes) {
            object["kind"] = .string("binary")
            object["added"] = .int(0)
            object["removed"] = .int(0)
            object["changed"] = .int(oldBytes == newBytes ? 0 : 1)
            return .object(object)
        }
        let oldLines = lines(oldBytes)
        let newLines = lines(newBytes)
        // NDJSON when every line is JSON: records, compared as values; else lines, as text.
        let oldRecords = records(oldLines)
        let newRecords = records(newLines)
        guard let oldRecords, let newRecords else {
            object["kind"] = .string("lines")
            let (added, removed) = multisetDifference(old: oldLines, new: newLines)
            object["added"] = .int(added.count)
            object["removed"] = .int(removed.count)
            object["added_items"] = .array(added.prefix(shown).map { .string($0) })
            object["removed_items"] = .array(removed.prefix(shown).map { .string($0) })
            return .object(object)
        }
        object["kind"] = .string("records")
        for member in records(old: oldRecords, new: newRecords, key: key).members { object[member.key] = member.value }
        return .object(object)
    }

    /// Records compared by `key`, or whole as a multiset without one.
    static func records(old: [Value], new: [Value], key: ValuePath?) -> Object {
        guard let key else {
            let (added, removed) = multisetDifference(old: old, new: new)
            var object = Object()
            object["added"] = .int(added.count)
            object["removed"] = .int(removed.count)
            object["added_items"] = .array(Array(added.prefix(shown)))
            object["removed_items"] = .array(Array(removed.prefix(shown)))
            return object
        }
        return keyed(old: old, new: new, key: key)
    }

    /// Records matched by the value at `key` (a record without it is counted as unkeyed).
    static func keyed(old: [Value], new: [Value], key: ValuePath) -> Object {
        func index(_ records: [Value]) -> (keys: [Value], byKey: [Value: Value], unkeyed: Int) {
            var keys: [Value] = []
            var byKey: [Value: Value] = [:]
            var unkeyed = 0
            for record in records {
                guard let value = record[path: key], !value.isNull else {
                    unkeyed += 1
                    continue
                }
                if byKey.updateValue(record, forKey: value) == nil { keys.append(value) }
            }
            return (keys, byKey, unkeyed)
        }
        let before = index(old)
        let after = index(new)
        let added = after.keys.filter { before.byKey[$0] == nil }
        let removed = before.keys.filter { after.byKey[$0] == nil }
        let changed = after.keys.filter { key in before.byKey[key].map { $0 != after.byKey[key] } ?? false }
        var object = Object()
        object["key"] = .string(key.description)
        object["added"] = .int(added.count)
        object["removed"] = .int(removed.count)
        object["changed"] = .int(changed.count)
        object["unkeyed"] = .int(before.unkeyed + after.unkeyed)
        object["added_items"] = .array(added.prefix(shown).compactMap { after.byKey[$0] })
        object["removed_items"] = .array(removed.prefix(shown).compactMap { before.byKey[$0] })
        object["changed_items"] = .array(
            changed.prefix(shown).map { key in
                .object(["old": before.byKey[key] ?? .null, "new": after.byKey[key] ?? .null])
            })
        return object
    }

    /// What `new` has more times than `old` (added) and fewer (removed), each in its file's order.
    static func multisetDifference<Item: Hashable>(old: [Item], new: [Item]) -> (added: [Item], removed: [Item]) {
        var counts: [Item: Int] = [:]
        for item in old { counts[item, default: 0] += 1 }
        var added: [Item] = []
        for item in new {
            if let count = counts[item], count > 0 {
                counts[item] = count - 1
            } else {
                added.append(item)
            }
        }
        var removed: [Item] = []
        for item in old.reversed() {
            if let count = counts[item], count > 0 {
                counts[item] = count - 1
                removed.append(item)
            }
        }
        return (added, removed.reversed())
    }

    /// The file's bytes, up to ``maxBytes``.
    static func contents(of path: String) throws(StudioError) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try FilePaths.readAll(path, limit: maxBytes) } catch {
            throw StudioError(status: 500, "cannot read \(path): \(error)")
        }
        guard bytes.count <= maxBytes else {
            throw StudioError(status: 413, "larger than \(maxBytes >> 20) MiB: not compared")
        }
        return bytes
    }

    /// Whether `bytes` are a binary file's (a NUL byte, which no text the outputs write holds).
    static func isBinary(_ bytes: some Collection<UInt8>) -> Bool { bytes.contains(0) }

    /// The lines of `bytes` as text (without the last empty one).
    static func lines(_ bytes: [UInt8]) -> [String] {
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Each line as JSON, or `nil` when one is not.
    static func records(_ lines: [String]) -> [Value]? {
        var records: [Value] = []
        for line in lines {
            guard let value = try? JSON.parse(line) else { return nil }
            records.append(value)
        }
        return records
    }
}
