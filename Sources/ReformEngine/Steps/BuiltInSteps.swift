/// The built-in steps, each written as a component in its own folder: the list the schema, the
/// decoder, `reform plugins` and the generated tier tests read.
package enum BuiltInSteps {
    /// Every step that handles each record on its own (``RecordStep``), in the order the schema
    /// and `reform plugins` list them.
    package static let components: [any RecordStep.Type] = [
        ExplodeStep.self, PickStep.self, DropStep.self, RenameStep.self, DefaultsStep.self, ConvertStep.self, SetStep.self,
        FilterStep.self, SelectStep.self, FlattenStep.self, TruncateStep.self,
    ]

    /// Every step that needs the records before it (``HoldingStep``), listed after the others.
    package static let holding: [any HoldingStep.Type] = [SortStep.self, DedupeStep.self, LimitStep.self]

    /// Every built-in step, in the order the schema and `reform plugins` list them.
    package static let all: [any BuiltInStep.Type] = components.map { $0 } + holding.map { $0 }

    /// The step a pipeline names `name`, if any.
    package static func step(named name: String) -> (any BuiltInStep.Type)? {
        all.first { $0.name == name }
    }
}
