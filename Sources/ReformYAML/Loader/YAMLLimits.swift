/// Bounds on what one load may cost, so that hostile or broken input fails fast with an error
/// instead of exhausting memory or the stack.
///
/// The defaults are generous for configuration and data files alike; a "billion laughs" file
/// (anchors that alias each other ten times per level) trips ``maxAliasNodes`` long before it
/// costs anything.
public struct YAMLLimits: Sendable, Hashable {
    /// The largest input accepted, in bytes.
    public var maxInputBytes: Int
    /// The deepest nesting of sequences and mappings (a scalar at the top has depth 0).
    public var maxDepth: Int
    /// The most nodes that alias expansions may add to one load, summed over every alias.
    public var maxAliasNodes: Int
    /// The most nodes one load may produce in all, alias copies included.
    public var maxNodes: Int

    /// Limits with the given values; each defaults to the value in ``default``.
    public init(
        maxInputBytes: Int = 64 << 20,
        maxDepth: Int = 256,
        maxAliasNodes: Int = 1_000_000,
        maxNodes: Int = 20_000_000
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
        self.maxAliasNodes = maxAliasNodes
        self.maxNodes = maxNodes
    }

    /// 64 MiB of input, nesting 256 deep, a million alias-copied nodes, twenty million nodes.
    public static let `default` = YAMLLimits()
}
