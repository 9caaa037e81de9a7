/// One option a plugin declares: its name, type, whether it is required, its default and what it does.
public struct PluginOption: Sendable, Hashable {
    /// The type of an option's value.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A string.
        case string
        /// A whole number.
        case int
        /// A number (whole numbers are accepted).
        case double
        /// `true` or `false`.
        case bool
        /// A list of strings.
        case strings
        /// A mapping of names to values.
        case object
        /// Any value; the plugin checks it.
        case any

        /// Whether `value` is of this kind.
        public func accepts(_ value: Value) -> Bool {
            switch (self, value) {
            case (.any, _), (.string, .string), (.int, .int), (.double, .int), (.double, .double), (.bool, .bool),
                (.object, .object):
                return true
            case (.strings, .array(let items)):
                return items.allSatisfy { $0.stringValue != nil }
            default:
                return false
            }
        }

        /// How messages name a value of this kind (`a whole number`, `a list of strings`, …).
        public var phrase: String {
            switch self {
            case .string: "a string"
            case .int: "a whole number"
            case .double: "a number"
            case .bool: "true or false"
            case .strings: "a list of strings"
            case .object: "a mapping"
            case .any: "any value"
            }
        }
    }

    /// The name used under `options:`.
    public let name: String
    /// The type of its value.
    public let kind: Kind
    /// Whether a pipeline must give it.
    public let required: Bool
    /// The value used when a pipeline does not give it.
    public let defaultValue: Value?
    /// What the option does, for `reform plugins`.
    public let doc: String

    /// An option called `name` of type `kind`: required when it has no `default` and `required` is
    /// not set to `false`.
    public init(_ name: String, _ kind: Kind, required: Bool? = nil, default defaultValue: Value? = nil, doc: String) {
        self.name = name
        self.kind = kind
        self.required = required ?? (defaultValue == nil)
        self.defaultValue = defaultValue
        self.doc = doc
    }
}
