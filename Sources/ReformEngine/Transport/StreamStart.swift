/// The first bytes of a stream fed in pieces, held until enough have come to decide how to read
/// it (a byte-order mark, a compression's magic bytes); then they go on with the rest.
struct StreamStart {
    /// How many bytes decide.
    let count: Int
    private var held: [UInt8]? = []

    /// A start decided by its first `count` bytes.
    init(count: Int) {
        self.count = count
    }

    /// Whether the start is still being held (the decision is not made yet).
    var isHolding: Bool { held != nil }

    /// The held bytes with `piece` after them, once at least `count` have come (`nil` while
    /// still holding). Call only while ``isHolding``: later pieces are read as they come.
    mutating func take(_ piece: UnsafeRawBufferPointer) -> [UInt8]? {
        guard var start = held else { return nil }
        start.append(contentsOf: piece)
        guard start.count >= count else {
            held = start
            return nil
        }
        held = nil
        return start
    }

    /// What is held when the stream ends short of `count` bytes (`nil`: nothing is).
    mutating func end() -> [UInt8]? {
        defer { held = nil }
        return held
    }
}
