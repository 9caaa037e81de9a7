package import ReformSDK

/// The slot operation the compiled tier runs for a step (``RecordStep/compiledForm``).
///
/// The compiled tier runs a chain on each NDJSON line's bytes, the keys a record carries each a
/// *slot* (a range of the line, or text written for it): an operation that only changes which
/// slots are written, in which order and under which names costs nothing per record. A step names
/// the operation that does what its ``RecordStep/apply(_:into:)`` does; the operations are the
/// compiled tier's (`Compiled/`), and anything a line's bytes cannot answer (a missing key a
/// `pick` needs, a value a conversion refuses) sends the line to the general tier, which applies
/// the step itself — so both tiers agree by construction where they can, and the generated
/// differential tests hold them to it everywhere else.
package enum CompiledStepForm: Sendable {
    /// One record per element of the array at a top-level key, the element in the array's place:
    /// only as a chain's first step, before a ``keepMembers(_:)`` (`explode`).
    case explode(ValuePath)
    /// Only these members, in this order; a record without one is rejected (`pick`).
    case keepMembers([String])
    /// These members removed (`drop`).
    case removeMembers([String])
    /// Members renamed, keeping their places (`rename`).
    case renameMembers([(from: String, to: String)])
    /// The record kept only when the condition holds (`filter`).
    case keepRecords(when: Condition)
    /// Each key given a value when it is missing or null (`defaults`).
    case fillNulls([(key: String, value: Value)])
    /// Each key's value converted, a key the records lack left alone (`convert`).
    case convertValues([(key: String, conversion: Conversion)])
    /// Each key set to a template rendered from the record as it was before the step (`set`).
    case assignTemplates([(key: String, template: Template)])
    /// Each edited key's value replaced by the step's own edit of it (a ``KeyEditStep``).
    case editValues(any KeyEditStep)
}
