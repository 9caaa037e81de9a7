package import ReformSDK

/// A built-in step that needs the records before it: `sort` holds them all until the end,
/// `dedupe` remembers the keys it saw, `limit` counts.
///
/// Besides its declaration (``BuiltInStep``) it says which key paths it reads and how they
/// resolve, its meaning on records (``start(sortMemory:)``, the general tier), and the operation
/// the held-lines tier runs for it when it is part of an NDJSON output's last reformer
/// (``heldLinesForm``: that tier reads the keys from the written lines' bytes, in `Sorting/`). It
/// never changes a record, so a table's column types and the keys records carry stay as they were.
package protocol HoldingStep: BuiltInStep {
    /// The step with the key names of its paths given as the constants the records carry
    /// (`constant` reports a name they do not carry, `keys` is what they carry, `nil` when not
    /// known).
    func resolving(_ constant: (String) -> String, keys: KeySet?) -> Self
    /// The step's meaning: a fresh run of it over one stream of records, a sort keeping about
    /// `sortMemory` bytes of records in memory and spilling the rest.
    func start(sortMemory: Int) -> any HoldingRun
    /// The operation the held-lines tier runs for the step (which checks it can: its key paths
    /// must be keys only).
    var heldLinesForm: HeldLinesForm { get }
}

extension HoldingStep {
    /// A holding step is a ``StepPlan/Kind/holding(_:)``.
    package var planned: StepPlan.Kind { .holding(HoldingComponent(self)) }
}

/// One run of a ``HoldingStep`` over a stream of records, with what it holds or remembers.
package protocol HoldingRun {
    /// Takes one record: passes it on to `out` (a `dedupe` or `limit` keeping it), holds it (a
    /// `sort`), or drops it.
    mutating func apply(_ record: Record, into out: inout [Record]) throws(RecordError)
    /// The next record held until the end of the stream (a sort's, in order), or `nil` when none
    /// are left; called only after the last ``apply(_:into:)``.
    mutating func nextReleased() throws(SpillError) -> Record?
}

extension HoldingRun {
    /// Most runs hold nothing until the end.
    package mutating func nextReleased() throws(SpillError) -> Record? { nil }
}

/// The operations the held-lines tier (`Sorting/LineSteps`) runs on written NDJSON lines: what a
/// ``HoldingStep`` names as its ``HoldingStep/heldLinesForm``.
package enum HeldLinesForm: Sendable {
    /// A stable sort by the value at `key`, compared as written (``ValueOrder``).
    case sort(key: ValuePath, descending: Bool)
    /// The first line of each key: the values at `keys` (one path's value is its own key), or the
    /// whole record when `keys` is empty.
    case dedupe(keys: [ValuePath])
    /// The first `count` lines.
    case limit(Int)
}

/// A built-in step that holds records (`HoldingStep`, `Sources/ReformEngine/Steps/`), as a
/// ``StepPlan/Kind`` carries it.
public struct HoldingComponent: Sendable {
    /// The step.
    package let step: any HoldingStep

    package init(_ step: any HoldingStep) {
        self.step = step
    }
}
