import CPrefetch
import ReformConcurrency

/// Writes the lines of a sort held in memory, in order, with a second thread copying half of them
/// out: lines are cut into chunks of about a MiB; both threads take the next chunk and copy its
/// lines (from all over the sort's memory, a cache miss a line) into a buffer; the calling thread
/// hands the buffers to the file in order. For `--jobs 2` and more, when no step follows the sort
/// (a `dedupe` or `limit` after it needs the lines one by one, in order).
///
/// `@unchecked Sendable`: the arena, spans and order are only read, by both threads, while the
/// writer runs; its own state is behind ``lock``.
final class ParallelLineWriter: @unchecked Sendable {
    private let arena: LineArena
    private let spans: [LineSpan]
    private let order: [Int]
    /// How many bytes a held line's header takes when its first byte is 1 (else it takes one).
    private let rangesHeaderBytes: Int
    private let chunkLines: Int
    private let chunks: Int

    private let lock = ConditionLock()
    /// The next chunk to copy out, the next to write, the chunks copied out and not yet written,
    /// buffers to reuse, whether the writing stopped (done, or the file failed), and whether the
    /// helper is still running.
    private var nextChunk = 0
    private var written = 0
    private var copied: [Int: [UInt8]] = [:]
    private var spare: [[UInt8]] = []
    private var stopped = false
    private var helping = false

    /// How many chunks may be copied out ahead of the one being written.
    private static let ahead = 4
    /// How many lines ahead the bytes of a line are asked for (``reform_prefetch``).
    private static let lookahead = 16

    /// A writer of the lines at `spans` in `arena` in `order`, headers of `rangesHeaderBytes`
    /// (or one) bytes skipped; lines are cut into chunks of `chunkLines`.
    init(arena: LineArena, spans: [LineSpan], order: [Int], rangesHeaderBytes: Int, chunkLines: Int) {
        self.arena = arena
        self.spans = spans
        self.order = order
        self.rangesHeaderBytes = rangesHeaderBytes
        self.chunkLines = max(1, chunkLines)
        chunks = (order.count + self.chunkLines - 1) / self.chunkLines
    }

    /// Writes every line, each followed by a newline, to `file`; returns how many. A second thread
    /// helps when one can be started; the lines are written the same either way.
    func write(into file: OutputFile) throws(OutputError) -> Int {
        lock.withLock { helping = true }
        if !OwnThread.tryStart({ self.help() }) { lock.withLock { helping = false } }
        defer {
            lock.withLock {
                stopped = true
                lock.broadcast()
                while helping { lock.wait() }
            }
        }
        for chunk in 0..<chunks {
            let bytes = try nextToWrite(chunk)
            try file.append(bytes)
            lock.withLock {
                spare.append(bytes)
                written = chunk + 1
                lock.broadcast()
            }
        }
        return order.count
    }

    /// Chunk `chunk`'s bytes: copied out here, or by the helper (waiting for it if it is on it).
    private func nextToWrite(_ chunk: Int) throws(OutputError) -> [UInt8] {
        while true {
            let claimed: (chunk: Int, buffer: [UInt8])? = lock.withLock {
                if copied[chunk] != nil { return nil }
                guard nextChunk < chunks, nextChunk - written < ParallelLineWriter.ahead else {
                    lock.wait()
                    return nil
                }
                defer { nextChunk += 1 }
                return (nextChunk, spare.popLast() ?? [])
            }
            if let claimed {
                let bytes = copyOut(claimed.chunk, into: claimed.buffer)
                lock.withLock {
                    copied[claimed.chunk] = bytes
                    lock.broadcast()
                }
            }
            if let bytes = lock.withLock({ copied.removeValue(forKey: chunk) }) { return bytes }
        }
    }

    /// The helper thread: copies out the next chunk while any is left and not too far ahead.
    private func help() {
        while true {
            let claimed: (chunk: Int, buffer: [UInt8])?? = lock.withLock {
                while !stopped, nextChunk < chunks, nextChunk - written >= ParallelLineWriter.ahead { lock.wait() }
                guard !stopped, nextChunk < chunks else { return .some(nil) }
                defer { nextChunk += 1 }
                return (nextChunk, spare.popLast() ?? [])
            }
            guard let claimed, let claimed else { break }
            let bytes = copyOut(claimed.chunk, into: claimed.buffer)
            lock.withLock {
                copied[claimed.chunk] = bytes
                lock.broadcast()
            }
        }
        lock.withLock {
            helping = false
            lock.broadcast()
        }
    }

    /// The lines of chunk `chunk`, each after its header and followed by a newline, in `buffer`
    /// (emptied first).
    private func copyOut(_ chunk: Int, into buffer: [UInt8]) -> [UInt8] {
        var bytes = buffer
        bytes.removeAll(keepingCapacity: true)
        let lines = chunk * chunkLines..<min((chunk + 1) * chunkLines, order.count)
        for index in lines {
            if index + ParallelLineWriter.lookahead < lines.upperBound {
                reform_prefetch(arena.bytes(at: spans[order[index + ParallelLineWriter.lookahead]]).baseAddress)
            }
            let held = arena.bytes(at: spans[order[index]])
            let start = held.first == 1 ? rangesHeaderBytes : 1
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: held[min(start, held.count)...]))
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
