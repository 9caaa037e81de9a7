public import ReformSDK
public import ReformYAML

/// One built-in step of a `steps:` reformer, with where it is declared.
public struct StepPlan: Sendable {
    /// What the step does.
    public enum Kind: Sendable {
        /// A step that handles each record on its own (`explode`, `pick`, `filter`, `truncate`…),
        /// written as a component (`RecordStep`) in its own folder under `Steps/`.
        case component(ComponentStep)
        /// A step that needs the records before it (`sort`, `dedupe`, `limit`), written as a
        /// component (`HoldingStep`) in its own folder under `Steps/`.
        case holding(HoldingComponent)
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
        case .holding: false
        case .component: true
        }
    }

    /// The slot operation the compiled tier runs for the step, when it has one.
    package var compiledForm: CompiledStepForm? {
        if case .component(let component) = kind { component.step.compiledForm } else { nil }
    }
}
