public import ReformSDK

/// Loads YAML 1.2 documents into ``YAMLNode`` trees, on the system libyaml's event parser.
///
/// Every node carries its 1-based line and column. Aliases are expanded into copies, merge keys
/// (`<<`) applied, plain scalars resolved by the YAML 1.2 core schema and explicit standard tags
/// (`!!str`, `!!int`, …) respected. Beyond libyaml's own checks the loader rejects duplicate keys
/// and undefined aliases, and ``YAMLLimits`` bound size, nesting and alias expansion.
///
/// ```swift
/// let documents = try YAMLLoader().load(contentsOfFile: "pipeline.yaml")
/// let value = try documents.first?.toValue(file: "pipeline.yaml")
/// ```
public struct YAMLLoader: Sendable {
    /// The bounds one load must stay within.
    public var limits: YAMLLimits

    /// A loader with the given limits.
    public init(limits: YAMLLimits = .default) {
        self.limits = limits
    }

    /// The documents in `bytes` (UTF-8, or UTF-16 with a byte order mark); `file` names the input in errors.
    public func load(_ bytes: [UInt8], file: String = "<input>") throws(YAMLError) -> [YAMLNode] {
        guard bytes.count <= limits.maxInputBytes else {
            throw YAMLError(
                code: .inputTooLarge, file: file, location: SourceLocation(line: 1, column: 1),
                message: "the input is \(bytes.count) bytes, more than the limit of \(limits.maxInputBytes) "
                    + "(YAMLLimits.maxInputBytes; raise it with reform --yaml-max-bytes)")
        }
        if bytes.isEmpty { return [] }
        let result: Result<[YAMLNode], YAMLError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(YAMLError) -> [YAMLNode] in
                var parser = try EventParser(input: buffer, file: file)
                var composer = Composer(input: buffer, file: file, limits: limits)
                return try composer.documents(from: &parser)
            }
        }
        return try result.get()
    }

    /// The documents in `text`; `file` names the input in errors.
    public func load(_ text: String, file: String = "<input>") throws(YAMLError) -> [YAMLNode] {
        try load(Array(text.utf8), file: file)
    }

    /// The documents in the file at `path`, which also names it in errors.
    public func load(contentsOfFile path: String) throws(YAMLError) -> [YAMLNode] {
        try load(try FileReader.contents(ofFile: path, maxBytes: limits.maxInputBytes), file: path)
    }

    /// The documents in `text` converted to ``Value``s (see ``YAMLNode/toValue(file:)``).
    public func loadValues(_ text: String, file: String = "<input>") throws(YAMLError) -> [Value] {
        var values: [Value] = []
        for document in try load(text, file: file) { values.append(try document.toValue(file: file)) }
        return values
    }
}
