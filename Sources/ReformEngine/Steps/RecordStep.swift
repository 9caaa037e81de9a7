package import ReformSDK
package import ReformYAML

/// A built-in step that handles each record on its own, written as one component: its
/// declaration, its decoding, its meaning, and the form the compiled tier runs.
///
/// Adding such a step is adding a folder under `Steps/` with one type conforming to this protocol,
/// and the type in ``BuiltInSteps/components``. From there the pipeline schema (`reform schema`,
/// editors' completion), the decoder and its unknown-step suggestions, `reform plugins`, the
/// general tier and the generated differential tests (``sample(keys:using:)``) all take it; a
/// step that is a ``KeyEditStep`` runs on the compiled tier too, with the same edit. The held-lines
/// tier only runs a chain's last `sort`, `dedupe` and `limit`, so a per-record step never needs a
/// form there.
///
/// The steps that hold records (`sort`, `dedupe`, `limit`) and the older per-record steps
/// (`explode`, `pick`, `drop`, `rename`, `defaults`, `convert`, `set`, `filter`) are still cases
/// of ``StepPlan/Kind``; see `docs/layout.md`.
package protocol RecordStep: Sendable {
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
    /// the top-level `keys`, and what it makes of them: how the generated differential tests
    /// (`ReformEngineTesting`'s chain generator) write this step.
    static func sample(keys: [String], using random: inout some RandomNumberGenerator) -> StepSample
    /// The step with the key names it reads given as the constants the records carry (`constant`
    /// reports a name they do not carry), and `keys` — what the records carry, `nil` when not
    /// known — changed as the step changes them.
    func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> Self
    /// The step's meaning: what it makes of one record (none, one or more records), or why it
    /// rejects it.
    func apply(_ record: Record, into out: inout [Record]) throws(RecordError)
    /// Whether every key keeps the kind of value it had (a table column's type inferred before the
    /// step still holds after it).
    var keepsValueKinds: Bool { get }
}

extension RecordStep {
    /// Most steps need an argument.
    package static var mayBeBare: Bool { false }
}

/// A step written by ``RecordStep/sample(keys:using:)``.
package struct StepSample: Sendable {
    /// What the step makes of the records' keys.
    package enum Keys: Sendable {
        /// The same keys.
        case unchanged
        /// Keys nobody can say before the records come (a `select`, a `flatten`).
        case unknown
        /// These keys, in this order.
        case known([String])
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
