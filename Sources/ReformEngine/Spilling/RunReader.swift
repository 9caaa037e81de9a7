import ReformSDK

/// Reads one spilled run back, entry by entry, through a buffer of its own.
///
/// A class over memory of its own, so that an entry read in place (``nextEntry()``) stays where
/// it is until the run is read on.
final class RunReader {
    let file: SpillFile
    /// The part of the file not read into the buffer yet.
    private var remaining: Range<Int>
    private var buffer: UnsafeMutableRawBufferPointer
    /// The unread bytes in `buffer`.
    private var window = 0..<0

    init(file: SpillFile, range: Range<Int>, bufferSize: Int) {
        self.file = file
        remaining = range
        buffer = .allocate(byteCount: max(1, bufferSize), alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The run's next entry, or `nil` at its end.
    func next<Element: Spillable>(context: Element.SpillContext) throws(SpillError) -> (key: Value, element: Element)? {
        guard let entry = try nextEntry() else { return nil }
        var reader = SpillReader(entry)
        return (key: try reader.value(), element: try Element(unspilling: &reader, context: context))
    }

    /// The run's next entry where it lies in the buffer (until the run is read on), or `nil` at
    /// its end.
    func nextEntry() throws(SpillError) -> UnsafeRawBufferPointer? {
        guard let length = try length() else { return nil }
        try fill(length)
        let entry = window.lowerBound..<window.lowerBound + length
        window = entry.upperBound..<window.upperBound
        return UnsafeRawBufferPointer(rebasing: buffer[entry])
    }

    /// Reads the entry's length prefix, or `nil` at the end of the run.
    private func length() throws(SpillError) -> Int? {
        if window.isEmpty && remaining.isEmpty { return nil }
        try fill(min(10, window.count + remaining.count))
        var value = 0
        var shift = 0
        var position = window.lowerBound
        while position < window.upperBound {
            let byte = buffer[position]
            position += 1
            value |= Int(byte & 0x7F) << shift
            if byte < 0x80 {
                window = position..<window.upperBound
                return value
            }
            shift += 7
        }
        throw SpillError(message: "a sort's temporary file ended in the middle of a record")
    }

    /// Makes sure the window holds at least `count` bytes (fewer only at the end of the run).
    private func fill(_ count: Int) throws(SpillError) {
        guard window.count < count else { return }
        let kept = window.count
        if buffer.count < count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
            grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[window]))
            buffer.deallocate()
            buffer = grown
        } else if kept > 0 {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[window]))
        }
        var filled = kept
        while filled < buffer.count, !remaining.isEmpty {
            guard let base = buffer.baseAddress else { break }
            let got = try file.read(at: remaining.lowerBound, count: min(buffer.count - filled, remaining.count), into: base + filled)
            guard got > 0 else { break }
            remaining = remaining.lowerBound + got..<remaining.upperBound
            filled += got
        }
        window = 0..<filled
        guard filled >= count else {
            throw SpillError(message: "a sort's temporary file ended in the middle of a record")
        }
    }
}
