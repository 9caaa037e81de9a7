public import ReformSDK
public import ReformYAML

/// One built-in step of a `steps:` reformer, with where it is declared.
public struct StepPlan: Sendable {
    /// What the step does.
    public enum Kind: Sendable {
        /// One record per element of the array at a path, the element taking the array's place.
        case explode(ValuePath)
        /// Keep only these keys, in this order.
        case pick([String])
        /// Remove these keys.
        case drop([String])
        /// Rename keys (old → new), keeping their positions.
        case rename([(from: String, to: String)])
        /// Give keys a value when they are missing or null.
        case defaults([(key: String, value: Value)])
        /// Convert values of these keys.
        case convert([(key: String, conversion: Conversion)])
        /// Set keys from string templates.
        case set([(key: String, template: Template)])
        /// Keep only records for which the condition holds.
        case filter(Condition)
        /// Sort all records by a key (stable; nulls and missing last).
        case sort(key: ValuePath, descending: Bool)
        /// Drop records whose keys repeat an earlier record's (all of the record when empty).
        case dedupe([ValuePath])
        /// Keep the first N records.
        case limit(Int)
        /// A step written as a component (`RecordStep`), in its own folder under `Steps/`.
        case component(ComponentStep)
    }

    /// What the step does.
    public let kind: Kind
    /// The step's name as written (`select`, `filter`, …).
    public let name: String
    /// Where it is declared.
    public let location: SourceLocation
}

extension StepPlan {
    /// Whether the step handles each record on its own: everything but `sort`, `dedupe` and
    /// `limit`, which need the records before it.
    public var isPerRecord: Bool {
        switch kind {
        case .sort, .dedupe, .limit: false
        default: true
        }
    }
}
