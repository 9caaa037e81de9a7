/// The options a pipeline gave a plugin, checked against its declaration, with defaults filled in,
/// read by typed accessors that throw ``PluginOptionError`` naming the option.
public struct PluginOptions: Sendable, Hashable {
    /// Every option given or defaulted, in declaration order, then any undeclared `any` extras.
    public let values: Object

    /// Options checked against `declared`: unknown names, wrong types and missing required options
    /// throw (the first one found); defaults fill what was not given.
    public init(checking given: Object, against declared: [PluginOption]) throws(PluginOptionError) {
        if let problem = PluginOptions.problems(in: given, against: declared).first { throw problem }
        var values = Object(minimumCapacity: declared.count)
        for option in declared {
            if let value = given[option.name] ?? option.defaultValue { values.appendNew(key: option.name, value: value) }
        }
        self.values = values
    }

    /// Every problem with `given` against `declared`, in the order found: unknown names, wrong types,
    /// then missing required options.
    public static func problems(in given: Object, against declared: [PluginOption]) -> [PluginOptionError] {
        var problems: [PluginOptionError] = []
        for member in given.members {
            guard let option = declared.first(where: { $0.name == member.key }) else {
                let names = declared.map(\.name)
                problems.append(
                    PluginOptionError(
                        option: member.key,
                        message: "is not an option of this plugin"
                            + (names.isEmpty ? "; it takes none" : " (options: \(names.joined(separator: ", ")))")))
                continue
            }
            if !option.kind.accepts(member.value) {
                problems.append(
                    PluginOptionError(option: member.key, message: "must be \(option.kind.phrase), not \(member.value.kindName)"))
            }
        }
        for option in declared where option.required && given[option.name] == nil {
            problems.append(PluginOptionError(option: option.name, message: "is required: \(option.doc)"))
        }
        return problems
    }

    /// The value of `name`, if given or defaulted.
    public subscript(name: String) -> Value? { values[name] }

    /// The string option `name`.
    public func string(_ name: String) throws(PluginOptionError) -> String {
        guard case .string(let s) = try require(name) else { throw wrongKind(name, .string) }
        return s
    }

    /// The whole-number option `name`.
    public func int(_ name: String) throws(PluginOptionError) -> Int {
        guard case .int(let i) = try require(name) else { throw wrongKind(name, .int) }
        return i
    }

    /// The number option `name` (a whole number is accepted).
    public func double(_ name: String) throws(PluginOptionError) -> Double {
        guard let d = try require(name).doubleValue else { throw wrongKind(name, .double) }
        return d
    }

    /// The `true`/`false` option `name`.
    public func bool(_ name: String) throws(PluginOptionError) -> Bool {
        guard case .bool(let b) = try require(name) else { throw wrongKind(name, .bool) }
        return b
    }

    /// The list-of-strings option `name`.
    public func strings(_ name: String) throws(PluginOptionError) -> [String] {
        guard case .array(let items) = try require(name) else { throw wrongKind(name, .strings) }
        var out: [String] = []
        for item in items {
            guard case .string(let s) = item else { throw wrongKind(name, .strings) }
            out.append(s)
        }
        return out
    }

    /// The whole-number option `name`, which must lie in `range`.
    public func int(_ name: String, in range: ClosedRange<Int>) throws(PluginOptionError) -> Int {
        let value = try int(name)
        guard range.contains(value) else {
            throw PluginOptionError(option: name, message: "must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
        }
        return value
    }

    /// Whether option `name` was given or has a default.
    public func has(_ name: String) -> Bool { values[name] != nil }

    private func require(_ name: String) throws(PluginOptionError) -> Value {
        guard let value = values[name] else {
            throw PluginOptionError(option: name, message: "is not set; give it under 'options:' or declare a default")
        }
        return value
    }

    private func wrongKind(_ name: String, _ kind: PluginOption.Kind) -> PluginOptionError {
        PluginOptionError(option: name, message: "must be \(kind.phrase), not \(values[name]?.kindName ?? "missing")")
    }
}
