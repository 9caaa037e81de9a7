/// Where one line lies: its first byte in a ``LineBlock`` and its length. Read through the
/// ``LineArena`` that holds the block (``LineArena/bytes(at:)``), while it holds it.
///
/// `@unchecked Sendable`: a `--jobs` worker hands its batch's spans over with the block they
/// point into, and no longer touches either.
struct LineSpan: @unchecked Sendable {
    let start: UnsafeRawPointer
    let count: Int
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
    /// lies; `nil` (and nothing copied) when they do not fit.
    func append(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> LineSpan? {
        let start = used
        guard memory.count - start >= head.count + body.count, let base = memory.baseAddress else { return nil }
        if let from = head.baseAddress { (base + start).copyMemory(from: from, byteCount: head.count) }
        if let from = body.baseAddress { (base + start + head.count).copyMemory(from: from, byteCount: body.count) }
        used += head.count + body.count
        return LineSpan(start: UnsafeRawPointer(base + start), count: head.count + body.count)
    }

    /// Forgets the bytes used.
    func removeAll() { used = 0 }

    /// All of the block's memory, for the caller to fill with lines end to end; the block
    /// counts it as used (``append(_:_:)`` adds nothing more to it).
    func claimAll() -> UnsafeMutableRawBufferPointer {
        used = memory.count
        return memory
    }
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
    /// Blocks of the usual size emptied by ``removeAll()``, filled again before any is
    /// allocated: a sort that spills fills its arena again after each run, and fresh blocks
    /// cost a page fault every 4 KiB (a twentieth of a 2 GB sort's time).
    private var spare: [LineBlock] = []
    /// The size of a block the arena allocates (a longer line gets a block of its own size).
    let blockSize: Int

    /// An empty arena that allocates blocks of `blockSize` bytes (at least 4 KiB).
    init(blockSize: Int) {
        self.blockSize = max(4 << 10, blockSize)
    }

    /// A block of at least `bytes` bytes, all of it for the caller to fill with lines (read
    /// back through spans into it while the arena holds it): an emptied one when `bytes` fits
    /// the usual size and one is kept, else a new one.
    func freshBlock(atLeast bytes: Int) -> UnsafeMutableRawBufferPointer {
        let block = (bytes <= blockSize ? spare.popLast() : nil) ?? LineBlock(capacity: max(blockSize, bytes))
        blocks.append(block)
        return block.claimAll()
    }

    /// Takes `block` (its bytes as they are) as the arena's next block, for the spans of the
    /// lines in it.
    func adopt(_ block: LineBlock) {
        blocks.append(block)
    }

    /// The bytes of the line at `span` (one of this arena's), valid until the arena is emptied or
    /// let go.
    func bytes(at span: LineSpan) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: span.start, count: span.count)
    }

    /// Forgets every line; keeps the blocks of the usual size, emptied, for the next ones.
    func removeAll() {
        for block in blocks where block.capacity == blockSize {
            block.removeAll()
            spare.append(block)
        }
        blocks = []
    }

    /// Lets go of the blocks ``removeAll()`` kept and no line fills yet: nothing more will be
    /// appended (the lines held are only read from now on).
    func releaseSpare() {
        spare = []
    }
}
