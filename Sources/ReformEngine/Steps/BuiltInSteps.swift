/// The built-in steps written as components (``RecordStep``), in the order the schema and
/// `reform plugins` list them after the older steps.
package enum BuiltInSteps {
    /// Every component step.
    package static let components: [any RecordStep.Type] = [SelectStep.self, FlattenStep.self, TruncateStep.self]

    /// The component step a pipeline names `name`, if any.
    package static func component(named name: String) -> (any RecordStep.Type)? {
        components.first { $0.name == name }
    }
}
