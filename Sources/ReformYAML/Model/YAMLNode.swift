public import ReformSDK

/// One node of a loaded YAML document, with the line and column where it starts.
///
/// Aliases are already expanded (each use is a copy of the anchored node, with the anchor's
/// location) and merge keys (`<<`) already applied, so consumers see plain trees.
public struct YAMLNode: Sendable {
    /// What the node holds.
    public enum Content: Sendable {
        /// A scalar: its text as written and its YAML 1.2 core-schema value.
        case scalar(YAMLScalar)
        /// A sequence of nodes.
        case sequence([YAMLNode])
        /// Key–value pairs in document order.
        case mapping([YAMLPair])
    }

    /// What the node holds.
    public var content: Content
    /// Where the node starts (for a scalar, its first character, quote included).
    public var location: SourceLocation
    /// The node's explicit tag (`!!str`, `!custom`), expanded to its full form; `nil` when untagged.
    public var tag: String?

    /// A node holding `content` that starts at `location`.
    public init(content: Content, location: SourceLocation, tag: String? = nil) {
        self.content = content
        self.location = location
        self.tag = tag
    }
}

/// A scalar's text as written and the value it resolves to.
public struct YAMLScalar: Sendable {
    /// How the scalar was written.
    public enum Style: Sendable, Hashable {
        /// Unquoted: resolved by the core schema (`null`, `true`, `12`, `1e3`, `.inf`, …).
        case plain
        /// 'single quoted': always a string.
        case singleQuoted
        /// "double quoted": always a string.
        case doubleQuoted
        /// `|` block: always a string.
        case literal
        /// `>` block: always a string.
        case folded
    }

    /// The scalar's text after YAML's quoting and folding rules.
    public var text: String
    /// How it was written.
    public var style: Style
    /// The YAML 1.2 core-schema value (strings for every quoted or block scalar; tags respected).
    public var value: Value

    /// A scalar with the given text, style and resolved value.
    public init(text: String, style: Style, value: Value) {
        self.text = text
        self.style = style
        self.value = value
    }
}

/// One key–value pair of a mapping.
public struct YAMLPair: Sendable {
    /// The key node.
    public var key: YAMLNode
    /// The value node.
    public var value: YAMLNode

    /// A pair of `key` and `value`.
    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}
