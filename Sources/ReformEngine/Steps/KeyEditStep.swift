package import ReformSDK

/// A step that replaces the values of some keys, each by a function of that value alone, and
/// leaves a key the record lacks alone: the shape the compiled tier runs on a slot's text.
///
/// The edit is written once, over a ``Value``; the general tier applies it to the record's
/// member, and the compiled tier to the value parsed from the slot's text (a throw sends the line
/// to the general path, which rejects it with the same reason). ``keepsText(_:at:)`` lets the
/// compiled tier skip the parse when the text shows the edit would change nothing.
package protocol KeyEditStep: RecordStep {
    /// The keys edited, in the order they are edited.
    var editedKeys: [String] { get }
    /// The new value of `editedKeys[index]`, whose value is `value`; a throw rejects the record.
    func edit(_ value: Value, at index: Int) throws(RecordError) -> Value
    /// Whether the edit of `editedKeys[index]` keeps a value whose JSON text, as the writer prints
    /// it, is `text`: a shortcut that must never say yes when the edit would change the value.
    func keepsText(_ text: UnsafeRawBufferPointer, at index: Int) -> Bool
    /// The step with each edited key renamed by `rename`.
    func renamingKeys(_ rename: (String) -> String) -> Self
}

extension KeyEditStep {
    /// An edit may change a value's kind; a step whose edits never do says so.
    package var columnTypes: ColumnTypeEffect { .forgets }
    /// The compiled tier runs the edit on each edited slot.
    package var compiledForm: CompiledStepForm? { .editValues(self) }
    /// The compiled tier runs every key edit.
    package static var compiles: Bool { true }

    /// The edited keys as the records carry them; the keys are unchanged.
    package func resolving(_ constant: (String) -> String, keys: inout KeySet?) -> Self {
        renamingKeys(constant)
    }

    /// Each edited key's value replaced by its edit; a record that is not an object is rejected.
    package func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        var object = try StepSupport.object(record, step: Self.name)
        for (index, key) in editedKeys.enumerated() {
            if let value = object[key] { object[key] = try edit(value, at: index) }
        }
        out.append(Record(.object(object), origin: record.origin))
    }
}
