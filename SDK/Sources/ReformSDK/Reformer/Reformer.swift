/// An adapter from landed records to what one consumer needs (seeds/004's reformer).
///
/// The engine calls ``reform(_:from:into:)`` once per landed record, in order, and ``finish(into:)``
/// once after the last one. A reformer appends zero, one or many values to `output`: a filter
/// appends none, a mapping one, an explode step many; each appended value keeps the provenance
/// (manager, position) of the record being reformed. Reformers that need the whole stream (sort,
/// dedupe) keep ``Record``s and append them in ``finish(into:)``. Each run (and each worker of a
/// run) gets its own instance, so a reformer may keep mutable state without locks.
///
/// Throw ``RecordError`` to reject one record: the engine writes it to the dead-letter file with
/// the reason and the manager it came from, and the run carries on.
public protocol Reformer {
    /// The keys this reformer emits, in order; `nil` when it passes records through unchanged in
    /// shape (filters, sorts) or when it cannot say in advance.
    var keys: KeySet? { get }

    /// Reforms one record that `manager` landed, appending the results to `output`.
    mutating func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError)

    /// Appends whatever the reformer held back until the end of the stream.
    mutating func finish(into output: inout RecordBuffer) throws(RecordError)

    /// The top-level fields this reformer reads from `manager`'s records, when it reads no others;
    /// `nil` (the default) when it needs whole records. When the reformer is first in a chain, the
    /// engine then builds only these fields from NDJSON input, which makes parsing much cheaper.
    /// Records it rejects still reach the dead-letter file whole.
    func fieldsRead(from manager: ManagerRef) -> [String]?
}

extension Reformer {
    /// By default a reformer does not say which keys it emits.
    public var keys: KeySet? { nil }

    /// By default a reformer holds nothing back.
    public mutating func finish(into output: inout RecordBuffer) throws(RecordError) {}

    /// By default a reformer reads whole records.
    public func fieldsRead(from manager: ManagerRef) -> [String]? { nil }
}

/// The manager a record came from: its name and its position among the pipeline's managers.
///
/// Reformers that map per manager look their rules up by ``index``, which is cheaper per record
/// than comparing names.
@frozen
public struct ManagerRef: Sendable, Hashable, CustomStringConvertible {
    /// The manager's position in the pipeline's `managers:` section.
    public let index: Int
    /// The manager's name as written in the pipeline.
    public let name: String

    /// A reference to the manager `name` at position `index`.
    @inlinable
    public init(index: Int, name: String) {
        self.index = index
        self.name = name
    }

    /// The manager's name.
    public var description: String { name }
}

/// Why one record was rejected; the record goes to the dead-letter file with this reason.
public struct RecordError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A short, stable identifier for the kind of failure (`missing-field`, `wrong-type`, …).
    public let code: String
    /// What went wrong with this record and how to fix it.
    public let message: String

    /// A rejection with a stable `code` and a readable `message`.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
