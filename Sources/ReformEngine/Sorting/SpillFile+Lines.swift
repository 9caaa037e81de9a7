import ReformSDK

extension SpillFile {
    /// Appends a sorted run of lines: for each of `positions` in turn, the entry of the line
    /// `line` gives for it and its key `key`: the bytes ``appendRun(_:prefetch:write:)`` writes
    /// for an entry of ``SpillWriter/value(_:)`` then ``SpillWriter/block(_:)`` (what
    /// ``MergedLines`` reads), but written straight into the run's buffer: encoding each entry
    /// on its own first and copying it after its length was two fifths of a spill's
    /// instructions. Returns where the run lies in the file. `prefetch` is told the index in
    /// `positions` of each entry before it is written.
    func appendLineRun(
        _ positions: [Int], prefetch: (Int) -> Void, key: (Int) -> Value, line: (Int) -> UnsafeRawBufferPointer
    ) throws(SpillError) -> Range<Int> {
        let start = size
        var buffer = RunBuffer(capacity: SpillFile.runBufferBytes)
        defer { buffer.deallocate() }
        // A key that is not a number, a boolean or null is encoded here first.
        var otherKey = SpillWriter()
        for (index, position) in positions.enumerated() {
            prefetch(index)
            let keyValue = key(position)
            var scalar: (UInt64, UInt64) = (0, 0)
            let scalarCount = withUnsafeMutableBytes(of: &scalar) { SpillFile.encodeScalar(keyValue, into: $0) }
            // The buffers' closures cannot throw a typed error: the failure comes out as their result.
            let failure: SpillError?
            if let scalarCount {
                failure = withUnsafeBytes(of: &scalar) { scalar in
                    writeEntry(key: UnsafeRawBufferPointer(rebasing: scalar[0..<scalarCount]), line: line(position), into: &buffer)
                }
            } else {
                otherKey.bytes.removeAll(keepingCapacity: true)
                otherKey.value(keyValue)
                failure = otherKey.bytes.withUnsafeBytes { other in writeEntry(key: other, line: line(position), into: &buffer) }
            }
            if let failure { throw failure }
        }
        try append(buffer.written)
        return start..<size
    }

    /// Writes the entry of `line` and its encoded key into `buffer`, writing the buffer out first
    /// when the entry does not fit; the failure to write, if any.
    private func writeEntry(key: UnsafeRawBufferPointer, line: UnsafeRawBufferPointer, into buffer: inout RunBuffer) -> SpillError? {
        do throws(SpillError) { try appendEntry(key: key, line: line, into: &buffer) } catch { return error }
        return nil
    }

    /// ``writeEntry(key:line:into:)``, throwing its failure.
    private func appendEntry(key: UnsafeRawBufferPointer, line: UnsafeRawBufferPointer, into buffer: inout RunBuffer) throws(SpillError) {
        let entryCount = key.count + SpillFile.unsignedCount(UInt64(line.count)) + line.count
        let total = SpillFile.unsignedCount(UInt64(entryCount)) + entryCount
        if buffer.room < total {
            try append(buffer.written)
            buffer.clear()
        }
        buffer.unsigned(UInt64(entryCount))
        buffer.copy(key)
        buffer.unsigned(UInt64(line.count))
        if buffer.room >= line.count {
            buffer.copy(line)
        } else {
            // Longer than the buffer: the line is written from where it lies.
            try append(buffer.written)
            buffer.clear()
            try append(line)
        }
    }

    /// Bytes of a run written at a time.
    static let runBufferBytes = 1 << 20

    /// How many bytes ``SpillWriter/unsigned(_:)`` writes for `value`.
    static func unsignedCount(_ value: UInt64) -> Int {
        max(1, (UInt64.bitWidth - value.leadingZeroBitCount + 6) / 7)
    }

    /// Writes into `bytes` (16 bytes) what ``SpillWriter/value(_:)`` writes for `value` when it
    /// is null, a boolean, an integer or a double, and returns how many bytes; `nil` for any
    /// other value (nothing written).
    @inline(__always)
    static func encodeScalar(_ value: Value, into bytes: UnsafeMutableRawBufferPointer) -> Int? {
        switch value {
        case .null:
            bytes[0] = 0
            return 1
        case .bool(let b):
            bytes[0] = b ? 2 : 1
            return 1
        case .int(let i):
            guard let base = bytes.baseAddress else { return nil }
            bytes[0] = 3
            return 1 + SpillWriter.writeUnsigned(SpillWriter.zigzag(i), at: base + 1)
        case .double(let d):
            bytes[0] = 4
            bytes.storeBytes(of: d.bitPattern.littleEndian, toByteOffset: 1, as: UInt64.self)
            return 9
        default:
            return nil
        }
    }
}

/// The buffer ``SpillFile/appendLineRun(_:prefetch:key:line:)`` fills: memory of its own and
/// how much of it is written.
private struct RunBuffer {
    private let memory: UnsafeMutableRawBufferPointer
    private var used = 0

    init(capacity: Int) {
        memory = .allocate(byteCount: capacity, alignment: 16)
    }

    func deallocate() { memory.deallocate() }

    /// Bytes left.
    var room: Int { memory.count - used }

    /// The bytes written so far.
    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: memory[0..<used]) }

    mutating func clear() { used = 0 }

    /// `value` as ``SpillWriter/unsigned(_:)`` writes it; the caller made room.
    mutating func unsigned(_ value: UInt64) {
        guard let base = memory.baseAddress else { return }
        used += SpillWriter.writeUnsigned(value, at: base + used)
    }

    /// Copies `bytes`; the caller made room.
    mutating func copy(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, let base = memory.baseAddress else { return }
        (base + used).copyMemory(from: from, byteCount: bytes.count)
        used += bytes.count
    }
}
