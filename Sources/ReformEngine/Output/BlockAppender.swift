import ReformConcurrency

/// Appends blocks of bytes to an ``OutputFile``, in the order they come, from a thread of its
/// own, so that the thread making them does not wait for each write: at the end of a `--jobs`
/// run's sort that spilled, the merge of its runs is one thread's work, and writing the merged
/// lines (the kernel copying them into the file's pages) took as long again after it.
///
/// At most ``ahead`` blocks wait to be written; a block handed over when that many wait waits
/// for the writer, so memory stays a few blocks. Without a thread of its own (none could be
/// started), a block is written as it is handed over. The first write that fails stops the
/// writing, and its error comes back from the next ``hand(_:)`` or ``finish()``.
///
/// `@unchecked Sendable`: the file is used only by the writing thread until ``finish()``
/// returns; the rest of the state is behind ``lock``.
final class BlockAppender: @unchecked Sendable {
    private let file: OutputFile
    private let lock = ConditionLock()
    /// Blocks handed over and not yet written, first first; emptied blocks to fill again; the
    /// first write's failure; whether every block was handed over; whether the thread runs.
    private var waiting: [[UInt8]] = []
    private var spare: [[UInt8]] = []
    private var failure: OutputError?
    private var handedAll = false
    private var running = false

    /// How many blocks may wait to be written.
    private static let ahead = 2

    /// An appender to `file`, which nothing else uses until ``finish()`` returns.
    init(file: OutputFile) {
        self.file = file
        lock.withLock { running = true }
        if !OwnThread.tryStart({ self.writeBlocks() }) { lock.withLock { running = false } }
    }

    /// Hands `block` over to be written after those before it; returns an emptied array to fill
    /// next (one written before, when there is one).
    func hand(_ block: [UInt8]) throws(OutputError) -> [UInt8] {
        let (ownThread, spareBlock, failed): (Bool, [UInt8]?, OutputError?) = lock.withLock {
            guard running else { return (false, nil, failure) }
            while running, failure == nil, waiting.count >= BlockAppender.ahead { lock.wait() }
            if let failure { return (true, nil, failure) }
            waiting.append(block)
            lock.broadcast()
            return (true, spare.popLast(), nil)
        }
        if let failed { throw failed }
        guard ownThread else {
            try file.append(block)
            var emptied = block
            emptied.removeAll(keepingCapacity: true)
            return emptied
        }
        return spareBlock ?? []
    }

    /// Waits for every block handed over to be written; throws the first write's failure.
    func finish() throws(OutputError) {
        let failed: OutputError? = lock.withLock {
            handedAll = true
            lock.broadcast()
            while running { lock.wait() }
            return failure
        }
        if let failed { throw failed }
    }

    /// The writing thread: writes the blocks in turn until every one was handed over and written,
    /// or a write failed.
    private func writeBlocks() {
        while true {
            let next: [UInt8]? = lock.withLock {
                while waiting.isEmpty && !handedAll { lock.wait() }
                return waiting.isEmpty ? nil : waiting.removeFirst()
            }
            guard var block = next else { break }
            do {
                try file.append(block)
            } catch {
                lock.withLock {
                    failure = error
                    waiting = []
                }
                break
            }
            block.removeAll(keepingCapacity: true)
            lock.withLock {
                spare.append(block)
                lock.broadcast()
            }
        }
        lock.withLock {
            running = false
            lock.broadcast()
        }
    }
}
