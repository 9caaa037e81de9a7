package import ReformSDK
package import ReformYAML

/// A built-in step written as one component, in its own folder under `Steps/`: its declaration
/// (name, summary, argument schema), its decoding, and how the generated differential tests write
/// it. What it does is said by the kind it also is: a ``RecordStep`` handles each record on its
/// own; a ``HoldingStep`` (`sort`, `dedupe`, `limit`) needs the records before it.
///
/// Adding a step is adding a folder with one type conforming to one of those, and the type in
/// ``BuiltInSteps``. From there the pipeline schema (`reform schema`, editors' completion), the
/// decoder and its unknown-step suggestions, `reform plugins`, the resolution of key names against
/// the keys records carry, the general tier and the generated differential tests
/// (``sample(_:using:)``) all take it.
package protocol BuiltInStep: Sendable {
    /// The name a pipeline writes, as in `- truncate: { title: 40 }`.
    static var name: String { get }
    /// What the step does, in a line (`reform plugins`, the schema's description).
    static var summary: String { get }
    /// The schema of the step's argument.
    static var argument: SchemaType { get }
    /// The step its argument declares, or `nil` after reporting what is wrong at its place.
    static func decode(_ argument: StepArgument) -> Self?
    /// Whether the step may be written as its bare name (`- flatten`), without an argument.
    static var mayBeBare: Bool { get }
    /// A random valid step, in YAML flow style (`truncate: { name: 3 }`), for records carrying
    /// the keys `context` names, and what it makes of them: how the generated differential tests
    /// (`ReformEngineTesting`'s chain generator) write this step; `nil` when no such step suits
    /// those records (the generator draws another).
    static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample?
    /// How often the generated tests draw this step, against 1 for most (a step with several
    /// shapes worth trying, like `filter`, is drawn more).
    static var sampleWeight: Int { get }
    /// The step as a ``StepPlan`` holds it.
    var planned: StepPlan.Kind { get }
}

extension BuiltInStep {
    /// Most steps need an argument.
    package static var mayBeBare: Bool { false }
    /// Most steps are drawn as often as each other.
    package static var sampleWeight: Int { 1 }
}

/// A built-in step that handles each record on its own (`explode`, `pick`, `filter`,
/// `truncate`…).
///
/// Besides its declaration (``BuiltInStep``) it says how it resolves key names, what it does to
/// a table's column types, its meaning (``apply(_:into:)``, the general tier), and how the
/// compiled tier runs it (``compiledForm``: a ``KeyEditStep`` runs its own edit there; the others
/// name the slot operation that does what they do). The held-lines tier only runs a chain's last
/// holding steps, so a per-record step never needs a form there.
package protocol RecordStep: BuiltInStep {
    /// Whether the compiled tier runs the step anywhere after a chain's start (`explode` has a
    /// compiled form only as the start): the generated tests build chains that compile from these.
    static var compiles: Bool { get }
    /// The step with the key names it reads given as the constants the records carry (`constant`
    /// reports a name they do not carry), and `keys` — what the records carry, `nil` when not
    /// known — changed as the step changes them.
    func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> Self
    /// The step's meaning: what it makes of one record (none, one or more records), or why it
    /// rejects it.
    func apply(_ record: Record, into out: inout [Record]) throws(RecordError)
    /// What the step does to the column types a table output infers from the chain.
    var columnTypes: ColumnTypeEffect { get }
    /// The slot operation the compiled tier runs for this step, `nil` when it has none (the chain
    /// then runs on records from this step on).
    var compiledForm: CompiledStepForm? { get }
}

extension RecordStep {
    /// Most steps have no compiled form.
    package static var compiles: Bool { false }
    /// Most steps have no compiled form.
    package var compiledForm: CompiledStepForm? { nil }
    /// A per-record step is a ``StepPlan/Kind/component(_:)``.
    package var planned: StepPlan.Kind { .component(ComponentStep(self)) }
}

/// What a step does to the column types a table output infers from its chain.
package enum ColumnTypeEffect: Sendable {
    /// Every key keeps the kind of value it had.
    case keeps
    /// Nothing is known of the kinds after it.
    case forgets
    /// These keys hold values of these types after it; the others keep theirs.
    case sets([(key: String, type: ColumnType)])
    /// These keys move to new names, with their types.
    case renames([(from: String, to: String)])
}

/// What the generated differential tests know when they write a step
/// (``BuiltInStep/sample(_:using:)``).
package struct SampleContext: Sendable {
    /// The top-level keys the records carry, or a set of keys landed records usually carry when
    /// ``known`` is false.
    package var keys: [String]
    /// Whether ``keys`` are exactly the keys the records carry (the loader knows them: after a
    /// mapping, a `pick`, declared keys), rather than landed records' usual keys.
    package var known: Bool

    /// The context of records carrying `keys` (`known`: exactly those).
    package init(keys: [String], known: Bool) {
        self.keys = keys
        self.known = known
    }

    /// A key the records carry.
    package func key(using random: inout some RandomNumberGenerator) -> String {
        keys.randomElement(using: &random) ?? "id"
    }
}

/// A step written by ``BuiltInStep/sample(_:using:)``.
package struct StepSample: Sendable {
    /// What the step makes of the records' keys.
    package enum Keys: Sendable {
        /// The same keys.
        case unchanged
        /// Keys nobody can say before the records come (a `select`, a `flatten`).
        case unknown
        /// These keys, in this order.
        case known([String])
        /// The keys before, with these added at the end (those not there already), when they were
        /// known.
        case adding([String])
        /// The keys before less these, when they were known.
        case removing([String])
        /// The keys before, these renamed, when they were known.
        case renaming(from: String, to: String)
    }

    /// The step as a pipeline writes it, in YAML flow style.
    package var text: String
    /// What it makes of the keys.
    package var keys: Keys

    /// The step `text`, which makes `keys` of the keys.
    package init(_ text: String, keys: Keys = .unchanged) {
        self.text = text
        self.keys = keys
    }
}

/// A step's argument as the decoder found it, with what reads it.
package struct StepArgument {
    /// The argument (`nil` when the step is written as a bare name).
    package let node: YAMLNode?
    /// Where the step's name is.
    package let location: SourceLocation
    /// The step and its reformer, for messages (`step 'truncate' of reformer 'short'`).
    package let what: String
    /// Reads typed values and collects diagnostics.
    package let context: DecodingContext

    /// The argument, or `nil` after reporting that the step needs one.
    package func required() -> YAMLNode? {
        guard let node, !node.isNullScalar else {
            context.error("\(what) needs an argument", at: location)
            return nil
        }
        return node
    }
}

/// A built-in step written as a component (`RecordStep`, `Sources/ReformEngine/Steps/`), as a
/// ``StepPlan/Kind`` carries it.
public struct ComponentStep: Sendable {
    /// The step.
    package let step: any RecordStep

    package init(_ step: any RecordStep) {
        self.step = step
    }
}
