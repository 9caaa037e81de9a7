import ReformSDK

/// The rows a run sends to one child table (``ChildTablePlan``), held until the parent's rows
/// are all loaded.
///
/// Each loaded parent row leaves one entry in an unlinked temporary file (nothing is left behind
/// however the run ends): its number among the parent's rows, its key, its list, and where its
/// record came from. The element columns are found as entries come (``ElementColumns``), so the
/// table can be created or settled once they are all known; the rows are then read back in order.
final class ChildTableRows {
    /// The child table.
    let plan: ChildTablePlan
    /// The columns the elements have had so far.
    private(set) var columns = ElementColumns()
    /// The elements of those entries' lists: the rows to load (before any is left out).
    private(set) var elementCount = 0
    private var file: SpillFile?
    private var pending = SpillWriter()
    private var entry = SpillWriter()
    /// Write the pending entries when they take this much.
    private static let batchBytes = 1 << 20

    /// One parent row's entry, read back.
    struct Entry {
        /// The parent row's number among the rows loaded (``TableLoader``), which a refused row
        /// is known by.
        let ordinal: Int
        /// The parent's key values, in the key's order.
        let key: [Value]
        /// The list's elements (none for a missing or null list).
        let elements: [Value]
        /// Where the parent's record came from, and the input it was read from (its name), for
        /// dead-letter entries.
        let origin: Origin
        let input: String?
    }

    /// The rows of `plan`'s table.
    init(_ plan: ChildTablePlan) {
        self.plan = plan
    }

    /// The elements `value` (a record's value for the list key) gives: a list's, none for null or
    /// a missing key; `nil` for any other value, which cannot be a child table's rows.
    static func elements(of value: Value?) -> [Value]? {
        switch value {
        case nil, .null?: return []
        case .array(let items)?: return items
        default: return nil
        }
    }

    /// Holds the rows of one loaded parent row: its number, key and elements, and its record's
    /// origin.
    func hold(ordinal: Int, key: [Value], elements: [Value], origin: Origin, input: String?) throws(SpillError) {
        for element in elements { columns.see(element) }
        elementCount += elements.count
        entry.bytes.removeAll(keepingCapacity: true)
        entry.int(ordinal)
        entry.int(origin.manager.index)
        entry.string(origin.manager.name)
        entry.int(origin.sequence)
        entry.int(origin.line)
        entry.int(origin.page)
        entry.value(.bool(input != nil))
        if let input { entry.string(input) }
        entry.value(.array(key))
        entry.value(.array(elements))
        pending.unsigned(UInt64(entry.bytes.count))
        pending.bytes.append(contentsOf: entry.bytes)
        if pending.bytes.count >= ChildTableRows.batchBytes { try writePending() }
    }

    private func writePending() throws(SpillError) {
        guard !pending.bytes.isEmpty else { return }
        if file == nil {
            file = try SpillFile(
                purpose: "the rows of child table '\(plan.name)' are kept in a temporary file until the parent's rows are loaded")
        }
        try file?.append(pending.bytes)
        pending.bytes.removeAll(keepingCapacity: true)
    }

    /// Reads every entry back, in the order held, handing each to `body`.
    func readEach(_ body: (Entry) throws(OutputError) -> Void) throws(OutputError) {
        do throws(SpillError) { try writePending() } catch { throw OutputError(path: plan.name, message: error.message) }
        guard let file else { return }
        let reader = RunReader(file: file, range: 0..<file.size, bufferSize: 1 << 20)
        while true {
            let read: Entry?
            do throws(SpillError) {
                guard let bytes = try reader.nextEntry() else { return }
                var decoder = SpillReader(bytes)
                let ordinal = try decoder.int()
                let manager = ManagerRef(index: try decoder.int(), name: try decoder.string())
                let origin = Origin(manager: manager, sequence: try decoder.int(), line: try decoder.int(), page: try decoder.int())
                let input = try decoder.value() == .bool(true) ? try decoder.string() : nil
                read = Entry(
                    ordinal: ordinal, key: try decoder.value().arrayValue ?? [], elements: try decoder.value().arrayValue ?? [],
                    origin: origin, input: input)
            } catch {
                throw OutputError(path: plan.name, message: error.message)
            }
            if let read { try body(read) }
        }
    }
}

/// The columns of a child table's elements, found from the elements themselves: an object's
/// fields in the order first seen, and ``ChildTablePlan/valueColumn`` for elements that are not
/// objects, each typed by every value it had.
struct ElementColumns {
    /// The kinds of value one column has had.
    private struct Kinds: OptionSet {
        let rawValue: UInt8
        static let int = Kinds(rawValue: 1)
        static let double = Kinds(rawValue: 2)
        static let bool = Kinds(rawValue: 4)
        static let text = Kinds(rawValue: 8)
        static let nested = Kinds(rawValue: 16)
    }

    /// The column names in the order first seen.
    private(set) var names: [String] = []
    private var kinds: [String: Kinds] = [:]

    /// Takes in one element.
    mutating func see(_ element: Value) {
        switch element {
        case .object(let object):
            for member in object.members { note(member.key, member.value) }
        default:
            note(ChildTablePlan.valueColumn, element)
        }
    }

    private mutating func note(_ name: String, _ value: Value) {
        let kind: Kinds
        switch value {
        case .null: kind = []
        case .int: kind = .int
        case .double: kind = .double
        case .bool: kind = .bool
        case .string: kind = .text
        case .array, .object: kind = .nested
        }
        if let seen = kinds[name] {
            if !seen.isSuperset(of: kind) { kinds[name] = seen.union(kind) }
        } else {
            names.append(name)
            kinds[name] = kind
        }
    }

    /// The columns: integers `int`, numbers `double`, bools `bool`, strings `text`, objects and
    /// lists (with or without scalars) `json`; a column of mixed scalars, or of nulls only, takes
    /// any value as text (as a key nothing types does).
    var tableColumns: [TableColumn] {
        names.map { name in
            let seen = kinds[name] ?? []
            let type: ColumnType?
            switch seen {
            case .int: type = .int
            case .double, [.int, .double]: type = .double
            case .bool: type = .bool
            case .text: type = .text
            default: type = seen.contains(.nested) ? .json : nil
            }
            return TableColumn(name: name, key: name, type: type ?? .text, isKnown: type != nil)
        }
    }
}
