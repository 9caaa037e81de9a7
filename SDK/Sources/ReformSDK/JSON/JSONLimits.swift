/// Limits a parse enforces, so that hostile input fails with a ``JSONError`` instead of
/// exhausting the stack or memory.
@frozen
public struct JSONLimits: Sendable, Hashable {
    /// The deepest nesting of arrays and objects accepted; `[[1]]` has depth 2.
    ///
    /// The parser itself never recurses, but code that walks or releases a ``Value`` does, so
    /// keep this in the thousands at most.
    public var maximumDepth: Int
    /// The largest document accepted, in bytes.
    public var maximumDocumentSize: Int

    /// Limits with the given values; the defaults are 512 levels and 1 GiB.
    public init(maximumDepth: Int = 512, maximumDocumentSize: Int = 1 << 30) {
        self.maximumDepth = maximumDepth
        self.maximumDocumentSize = maximumDocumentSize
    }
}
