public import ReformSDK

extension YAMLNode {
    /// The node as a ``Value``: mappings become ``Object``s in document order, sequences arrays and
    /// scalars their resolved value.
    ///
    /// Scalar keys become their resolved value's text: `1` → `"1"`, `0x1F` → `"31"`, `true` →
    /// `"true"`, null → `""`. A sequence or mapping used as a key cannot be a JSON object key and
    /// is an error, as is two keys with the same text (`1` and `"1"`). `file` names the input in
    /// errors.
    public func toValue(file: String = "<input>") throws(YAMLError) -> Value {
        switch content {
        case .scalar(let scalar):
            return scalar.value
        case .sequence(let elements):
            var array: [Value] = []
            array.reserveCapacity(elements.count)
            for element in elements { array.append(try element.toValue(file: file)) }
            return .array(array)
        case .mapping(let pairs):
            var object = Object(minimumCapacity: pairs.count)
            var keyLocations: [String: SourceLocation] = [:]
            for pair in pairs {
                let key = try pair.key.keyText(file: file)
                if let first = keyLocations[key] {
                    throw YAMLError(
                        code: .duplicateKey, file: file, location: pair.key.location,
                        message: "key \(MappingRules.displayName(of: pair.key)) has the same text '\(key)' "
                            + "as an earlier key of this mapping; JSON object keys must differ",
                        notes: [YAMLError.Note(location: first, message: "the earlier key is here")])
                }
                keyLocations[key] = pair.key.location
                object.appendNew(key: key, value: try pair.value.toValue(file: file))
            }
            return .object(object)
        }
    }

    /// The text of a scalar key's resolved value.
    private func keyText(file: String) throws(YAMLError) -> String {
        guard case .scalar(let scalar) = content else {
            let kind = if case .sequence = content { "sequence" } else { "mapping" }
            throw YAMLError(
                code: .unsupportedKey, file: file, location: location,
                message: "a \(kind) cannot be a key here; keys must be scalars to become JSON object keys")
        }
        switch scalar.value {
        case .null: return ""
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double: return scalar.text
        case .string(let s): return s
        case .array, .object: return scalar.text
        }
    }
}

extension YAMLNode {
    /// A node tree holding `value` (as if its JSON text were loaded), every node at `location`: for
    /// values that were parsed elsewhere and are to be read by what reads nodes (``YAMLNodeDecoder``).
    public init(_ value: Value, location: SourceLocation) {
        switch value {
        case .array(let elements):
            self.init(content: .sequence(elements.map { YAMLNode($0, location: location) }), location: location)
        case .object(let object):
            let pairs = object.members.map { member in
                YAMLPair(
                    key: YAMLNode(
                        content: .scalar(YAMLScalar(text: member.key, style: .doubleQuoted, value: .string(member.key))), location: location
                    ),
                    value: YAMLNode(member.value, location: location))
            }
            self.init(content: .mapping(pairs), location: location)
        case .string(let text):
            self.init(content: .scalar(YAMLScalar(text: text, style: .doubleQuoted, value: value)), location: location)
        case .int(let number):
            self.init(content: .scalar(YAMLScalar(text: String(number), style: .plain, value: value)), location: location)
        case .double(let number):
            self.init(content: .scalar(YAMLScalar(text: number.description, style: .plain, value: value)), location: location)
        case .bool(let flag):
            self.init(content: .scalar(YAMLScalar(text: flag ? "true" : "false", style: .plain, value: value)), location: location)
        case .null:
            self.init(content: .scalar(YAMLScalar(text: "null", style: .plain, value: value)), location: location)
        }
    }
}
