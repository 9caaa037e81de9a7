import ReformSDK

/// The rules a mapping obeys once its pairs are read: no key twice (YAML 1.2 requires unique keys,
/// which libyaml does not check), then merge keys (`<<`) applied.
enum MappingRules {
    /// How two scalar keys are told apart: by resolved value, so `1` and `"1"` differ but `1` and
    /// `0x1` are the same key.
    enum KeyIdentity: Hashable {
        case null
        case bool(Bool)
        case int(Int)
        case double(UInt64)
        case string(String)

        /// The identity of a scalar key; `nil` for sequences and mappings, which are not compared.
        init?(_ node: YAMLNode) {
            guard case .scalar(let scalar) = node.content else { return nil }
            switch scalar.value {
            case .null: self = .null
            case .bool(let b): self = .bool(b)
            case .int(let i): self = .int(i)
            case .double(let d): self = .double(d.bitPattern)
            case .string(let s): self = .string(s)
            case .array, .object: return nil
            }
        }
    }

    /// `pairs` checked for duplicate keys, with every merge key replaced by the pairs it merges.
    static func apply(to pairs: [YAMLPair], file: String) throws(YAMLError) -> [YAMLPair] {
        var seen: [KeyIdentity: SourceLocation] = [:]
        var hasMerge = false
        for pair in pairs {
            if isMergeKey(pair.key) { hasMerge = true }
            guard let identity = KeyIdentity(pair.key) else { continue }
            if let first = seen[identity] {
                let name = displayName(of: pair.key)
                throw YAMLError(
                    code: .duplicateKey, file: file, location: pair.key.location,
                    message: "duplicate key \(name) in this mapping; YAML requires each key once",
                    notes: [YAMLError.Note(location: first, message: "key \(name) first appears here")])
            }
            seen[identity] = pair.key.location
        }
        guard hasMerge else { return pairs }
        return try merge(pairs, explicitKeys: Set(seen.keys), file: file)
    }

    /// Replaces each merge key by the pairs of the mapping(s) it names; explicit keys win over merged
    /// ones, and earlier mappings in a merge list win over later ones.
    private static func merge(
        _ pairs: [YAMLPair], explicitKeys: Set<KeyIdentity>, file: String
    ) throws(YAMLError) -> [YAMLPair] {
        var taken = explicitKeys
        taken.remove(.string("<<"))
        var result: [YAMLPair] = []
        result.reserveCapacity(pairs.count)
        for pair in pairs {
            guard isMergeKey(pair.key) else {
                result.append(pair)
                continue
            }
            for source in try sources(of: pair.value, file: file) {
                for merged in source {
                    if let identity = KeyIdentity(merged.key) {
                        guard taken.insert(identity).inserted else { continue }
                    }
                    result.append(merged)
                }
            }
        }
        return result
    }

    /// The mappings a merge key's value names.
    private static func sources(of value: YAMLNode, file: String) throws(YAMLError) -> [[YAMLPair]] {
        switch value.content {
        case .mapping(let pairs):
            return [pairs]
        case .sequence(let elements):
            var sources: [[YAMLPair]] = []
            for element in elements {
                guard case .mapping(let pairs) = element.content else {
                    throw invalidMerge(element, file: file, what: "a sequence holding \(kind(of: element))")
                }
                sources.append(pairs)
            }
            return sources
        case .scalar:
            throw invalidMerge(value, file: file, what: kind(of: value))
        }
    }

    private static func invalidMerge(_ node: YAMLNode, file: String, what: String) -> YAMLError {
        YAMLError(
            code: .invalidMerge, file: file, location: node.location,
            message: "merge key '<<' takes a mapping or a sequence of mappings, not \(what)")
    }

    private static func kind(of node: YAMLNode) -> String {
        switch node.content {
        case .scalar: "a scalar"
        case .sequence: "a sequence"
        case .mapping: "a mapping"
        }
    }

    /// Whether `key` is the merge key: a plain `<<`, untagged or tagged `!!merge`.
    static func isMergeKey(_ key: YAMLNode) -> Bool {
        guard case .scalar(let scalar) = key.content, scalar.text == "<<" else { return false }
        if key.tag == CoreSchema.Tag.merge { return true }
        return key.tag == nil && scalar.style == .plain
    }

    /// `'name'` for a scalar key, as written.
    static func displayName(of key: YAMLNode) -> String {
        guard case .scalar(let scalar) = key.content else { return "(a collection)" }
        return "'\(scalar.text)'"
    }
}
