/// The built-in steps written as components (``RecordStep``): every step that handles each
/// record on its own, in the order the schema and `reform plugins` list them (the steps that hold
/// records, `sort`, `dedupe` and `limit`, come after).
package enum BuiltInSteps {
    /// Every component step.
    package static let components: [any RecordStep.Type] = [
        ExplodeStep.self, PickStep.self, DropStep.self, RenameStep.self, DefaultsStep.self, ConvertStep.self, SetStep.self,
        FilterStep.self, SelectStep.self, FlattenStep.self, TruncateStep.self,
    ]

    /// The component step a pipeline names `name`, if any.
    package static func component(named name: String) -> (any RecordStep.Type)? {
        components.first { $0.name == name }
    }
}
