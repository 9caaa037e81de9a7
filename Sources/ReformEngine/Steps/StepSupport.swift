package import ReformSDK

/// What several steps do the same way: read a record as an object, resolve a path's first key.
package enum StepSupport {
    /// The record's object, or the rejection every step that needs one gives.
    package static func object(_ record: Record, step: String) throws(RecordError) -> Object {
        guard case .object(let object) = record.value else {
            throw RecordError(
                code: "not-an-object", message: "step '\(step)' needs an object record; this one is \(record.value.kindName)")
        }
        return object
    }

    /// `path` with its first key given as the constant the records carry (`constant` reports a
    /// name they do not carry); unchanged when the keys are not known.
    package static func resolving(_ path: ValuePath, _ constant: (String) -> String, keys: KeySet?) -> ValuePath {
        guard keys != nil, case .key(let first)? = path.components.first else { return path }
        return ValuePath([.key(constant(first))] + path.components.dropFirst())
    }

    /// The constant a key the step names is given as: the one the records carry under that name,
    /// or the name itself for a key they do not carry yet (a key a step adds).
    package static func constant(of name: String, in keys: KeySet?) -> String {
        keys?.key(named: name)?.constant ?? name
    }

    /// `keys` with `constants` added at the end, those not there already; `nil` when not known.
    package static func adding(_ constants: [String], to keys: KeySet?) -> KeySet? {
        guard let keys else { return nil }
        var list = keys.keys
        for name in constants where keys.key(named: name) == nil { list.append(.init(name: name, constant: name)) }
        return KeySet(list)
    }
}
