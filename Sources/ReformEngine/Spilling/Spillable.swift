import ReformSDK

/// What an ``ExternalSort`` can hold: an element it can write to a spill file, read back exactly,
/// and estimate the memory of.
protocol Spillable {
    /// What reading an element back needs besides its bytes (a row's shape), or `Void`.
    associatedtype SpillContext

    /// Writes the element.
    func spill(into writer: inout SpillWriter)
    /// Reads back an element that ``spill(into:)`` wrote.
    init(unspilling reader: inout SpillReader, context: SpillContext) throws(SpillError)
    /// About how many bytes of memory the element takes, counted against a sort's budget.
    var estimatedBytes: Int { get }
}

extension Record: Spillable {
    func spill(into writer: inout SpillWriter) {
        writer.int(origin.manager.index)
        writer.string(origin.manager.name)
        writer.int(origin.sequence)
        writer.int(origin.line)
        writer.int(origin.page)
        writer.value(value)
    }

    init(unspilling reader: inout SpillReader, context: Void) throws(SpillError) {
        let manager = ManagerRef(index: try reader.int(), name: try reader.string())
        let origin = Origin(manager: manager, sequence: try reader.int(), line: try reader.int(), page: try reader.int())
        self.init(try reader.value(), origin: origin)
    }

    var estimatedBytes: Int { 48 + value.estimatedBytes }
}

extension Value {
    /// About how many bytes of memory the value takes: its own slot, plus what strings, arrays and
    /// objects keep on the heap. An estimate, for sort budgets; never less than the slot.
    var estimatedBytes: Int {
        switch self {
        case .null, .bool, .int, .double: return 24
        case .string(let s): return s.utf8.count <= 15 ? 24 : 56 + s.utf8.count
        case .array(let items): return items.reduce(56) { $0 + $1.estimatedBytes }
        case .object(let object):
            return object.members.reduce(56 + (object.count > Object.indexThreshold ? 48 * object.count : 0)) { total, member in
                total + 16 + (member.key.utf8.count <= 15 ? 0 : 32 + member.key.utf8.count) + member.value.estimatedBytes
            }
        }
    }
}
