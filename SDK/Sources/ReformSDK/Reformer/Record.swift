/// One record on its way through a chain, with where it came from (per-record provenance).
@frozen
public struct Record: Sendable {
    /// The record itself.
    public var value: Value
    /// Where it came from.
    public var origin: Origin

    /// A record `value` from `origin`.
    @inlinable
    public init(_ value: Value, origin: Origin) {
        self.value = value
        self.origin = origin
    }
}

/// Where a record came from: its manager, its position in that manager's landed records and, for
/// file input, its line.
@frozen
public struct Origin: Sendable, Hashable {
    /// The manager that landed it.
    public var manager: ManagerRef
    /// 1-based position among the records that manager landed in this run.
    public var sequence: Int
    /// 1-based line in the input file, or 0 when the record did not come from a line of a file.
    public var line: Int
    /// 1-based page the record landed on, or 0 when it did not come from a paged source.
    public var page: Int

    /// An origin in `manager` at position `sequence`, optionally with an input `line` and `page`.
    @inlinable
    public init(manager: ManagerRef, sequence: Int, line: Int = 0, page: Int = 0) {
        self.manager = manager
        self.sequence = sequence
        self.line = line
        self.page = page
    }
}

/// Where a reformer appends its output; appended values inherit the origin of the record being
/// reformed, so provenance survives every step.
@frozen
public struct RecordBuffer: Sendable {
    /// The records appended so far.
    public var records: [Record]
    /// The origin given to values appended with ``append(_:)``.
    public var currentOrigin: Origin

    /// An empty buffer whose appended values get `origin` until it is changed.
    @inlinable
    public init(origin: Origin) {
        records = []
        currentOrigin = origin
    }

    /// Appends `value` with the origin of the record being reformed.
    @inlinable
    public mutating func append(_ value: Value) {
        records.append(Record(value, origin: currentOrigin))
    }

    /// Appends a record that keeps its own origin (for reformers that held records back).
    @inlinable
    public mutating func append(_ record: Record) {
        records.append(record)
    }

    /// Removes the records, keeping the storage.
    @inlinable
    public mutating func removeAll() {
        records.removeAll(keepingCapacity: true)
    }
}
