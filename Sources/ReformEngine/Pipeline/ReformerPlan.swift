public import ReformSDK
public import ReformYAML

/// A declared reformer: how it is built and the keys it emits.
public struct ReformerPlan: Sendable {
    /// What kind of reformer it is.
    public enum Kind: Sendable {
        /// Per-manager field mappings into declared keys (`keys:` with `from:` or `map:`).
        case mapping(MappingPlan)
        /// A chain of built-in steps (`steps:`).
        case steps([StepPlan])
        /// A Swift plugin from `Plugins/` (`plugin:` and `options:`), loaded and its options checked.
        case plugin(PluginPlan)
    }

    /// The reformer's name.
    public let name: String
    /// The declared keys, when any.
    public let keys: KeySet?
    /// How it is built.
    public let kind: Kind
    /// Where it is declared.
    public let location: SourceLocation
}

/// A loaded plugin and the checked options a pipeline gives it: makes one reformer per chain.
public struct PluginPlan: Sendable {
    /// The plugin's name (`plugin:`).
    public let name: String
    /// The absolute path of the library it was loaded from, or ``inProcess`` for a plugin the
    /// program registered with ``PipelineLoader/plugins``.
    public let library: String

    /// The ``library`` of a plugin registered in process: `(in process)`.
    public static let inProcess = "(in process)"
    /// The plugin object the library made.
    public let plugin: any ReformerPlugin
    /// The options, checked against the plugin's declaration, with defaults filled in.
    public let options: PluginOptions
    /// For each manager index, the top-level fields the reformer reads, when it said so
    /// (`Reformer.fieldsRead(from:)`); only those are built from NDJSON input.
    public let fieldsRead: [Int: [String]]

    /// A new reformer for one chain.
    public func makeReformer() throws(PluginOptionError) -> any Reformer {
        try plugin.make(options: options)
    }
}

/// Mapping rules: for each manager index, one rule per declared key, in key order.
public struct MappingPlan: Sendable {
    /// Rules per manager index; `shared` applies to managers without rules of their own.
    public let perManager: [Int: [FieldRule]]
    /// Rules for every manager not listed in `perManager` (`map:`), if any.
    public let shared: [FieldRule]?
}

/// How one declared key is filled from a landed record.
public struct FieldRule: Sendable {
    /// Where the value comes from.
    public enum Source: Sendable {
        /// A path in the landed record.
        case path(ValuePath)
        /// A string template over the record (`"{name} ({city})"`).
        case template(Template)
        /// A constant.
        case constant(Value)
    }

    /// The output constant this rule fills.
    public let constant: String
    /// Where the value comes from.
    public let source: Source
    /// Whether a missing source is allowed (the key then holds `default`, or null).
    public let optional: Bool
    /// The value used when the source is missing or null.
    public let defaultValue: Value?
    /// A conversion applied to the value.
    public let conversion: Conversion?
    /// What is made of an array at the path (`labels[].name`, `array: join`), when anything.
    public var array: ArrayOperation? = nil
}
