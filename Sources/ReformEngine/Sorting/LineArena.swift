/// Where one line lies in a ``LineArena``.
struct LineSpan {
    /// The arena's block it is in.
    let block: UInt32
    /// Its length in bytes.
    let count: UInt32
    /// Where it starts in the block.
    let start: Int
}

/// One block of memory that lines are copied into, end to end, for a ``LineArena``.
///
/// `@unchecked Sendable`: a `--jobs` worker fills a block for its batch's lines and hands it,
/// with the batch, to the landing thread, which only reads it from then on.
final class LineBlock: @unchecked Sendable {
    private let memory: UnsafeMutableRawBufferPointer
    /// Bytes used so far, from the start.
    private(set) var used = 0

    /// An empty block of `capacity` bytes.
    init(capacity: Int) {
        memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, capacity), alignment: 16)
    }

    deinit {
        memory.deallocate()
    }

    /// Bytes the block holds.
    var capacity: Int { memory.count }

    /// Copies `head` and then `body` after the bytes used, as one line, and returns where it
    /// starts; `nil` (and nothing copied) when they do not fit.
    func append(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Int? {
        let start = used
        guard memory.count - start >= head.count + body.count, let base = memory.baseAddress else { return nil }
        if let from = head.baseAddress { (base + start).copyMemory(from: from, byteCount: head.count) }
        if let from = body.baseAddress { (base + start + head.count).copyMemory(from: from, byteCount: body.count) }
        used += head.count + body.count
        return start
    }

    /// The `count` bytes from `start`, valid while the block is.
    func bytes(from start: Int, count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: memory[start..<start + count])
    }

    /// Forgets the bytes used.
    func removeAll() { used = 0 }
}

/// The bytes of many lines end to end in a few large blocks of memory, for a sort that holds
/// them: one allocation a block rather than an array a line, read back through ``LineSpan``s
/// (a sort of 400,000 lines spent a quarter of its time allocating, retaining and releasing
/// the arrays of its lines). A `--jobs` worker's batch comes as a block of its own, taken as it is.
///
/// A class, so that the blocks go once, when the last holder lets it go; nothing else reads or
/// writes them.
final class LineArena {
    private var blocks: [LineBlock] = []
    /// The size of a block the arena allocates (a longer line gets a block of its own size).
    let blockSize: Int

    /// An empty arena that allocates blocks of `blockSize` bytes (at least 4 KiB).
    init(blockSize: Int) {
        self.blockSize = max(4 << 10, blockSize)
    }

    /// Copies `head` and then `body` into the arena as one line; `nil` when the two are together
    /// longer than a span can say (4 GiB).
    func append(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> LineSpan? {
        let count = head.count + body.count
        guard count <= Int(UInt32.max) else { return nil }
        if let last = blocks.last, let start = last.append(head, body) {
            return LineSpan(block: UInt32(blocks.count - 1), count: UInt32(count), start: start)
        }
        let block = LineBlock(capacity: max(blockSize, count))
        blocks.append(block)
        return block.append(head, body).map { LineSpan(block: UInt32(blocks.count - 1), count: UInt32(count), start: $0) }
    }

    /// Takes `block` (its bytes as they are) as the arena's next block; returns its number, for
    /// the spans of its lines.
    func adopt(_ block: LineBlock) -> UInt32 {
        blocks.append(block)
        return UInt32(blocks.count - 1)
    }

    /// The bytes of the line at `span`, valid until the arena is emptied or let go.
    func bytes(at span: LineSpan) -> UnsafeRawBufferPointer {
        blocks[Int(span.block)].bytes(from: span.start, count: Int(span.count))
    }

    /// Forgets every line; keeps the first block, if it is of the usual size, for the next ones.
    func removeAll() {
        guard let first = blocks.first, first.capacity == blockSize else {
            blocks = []
            return
        }
        first.removeAll()
        blocks = [first]
    }
}
