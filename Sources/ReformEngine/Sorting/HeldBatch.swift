import ReformSDK

/// The lines a `--jobs` worker wrote for one output in one batch, with their sort keys read
/// (``LineSteps/appendEntry(of:to:)``), for the landing thread only to hold: what the sort holds
/// of each line (``HeldLine``), end to end in a block of their own that the sort takes as it is,
/// and each line's key.
struct HeldBatch {
    /// The held lines' bytes, one after another; `nil` in an empty batch.
    let block: LineBlock?
    /// Where each line lies in ``block``.
    var spans: [LineSpan] = []
    /// Each line's sort key.
    var keys: [Value] = []
    /// What the lines and keys count for against the sort's budget, as ``LineSort`` counts each.
    var heldBytes = 0
    /// Whether every key is a number or null: the sort then keeps ``keys`` as they are.
    var keysAreNumbers = true
    /// Whether the keys compare as numbers, for the sort's merge.
    var numeric = NumericKeys()

    /// An empty batch; `capacity` bytes of lines fit in its block.
    init(capacity: Int) {
        block = capacity > 0 ? LineBlock(capacity: capacity) : nil
    }

    /// Whether it holds no line.
    var isEmpty: Bool { keys.isEmpty }
}
