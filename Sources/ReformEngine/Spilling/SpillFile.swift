import ReformSystem

/// The unnamed temporary file a sort's runs spill to.
///
/// An ``UnnamedFile``: the bytes live only as long as the descriptor, so nothing is left behind
/// however the process ends, even on `SIGKILL`. Runs are
/// appended one after another; each reader reads its own run with `pread`.
final class SpillFile {
    /// The folder the file was made in (for messages).
    let folder: String
    /// Who needs the file and when, for messages (``SpillError/sorting``).
    let purpose: String
    private let descriptor: Int32
    /// Bytes written so far: where the next run starts.
    private(set) var size = 0

    /// A new, already unlinked, file in `TMPDIR` or `/tmp`, for `purpose` (said in messages).
    init(purpose: String = SpillError.sorting) throws(SpillError) {
        self.purpose = purpose
        let file: UnnamedFile
        switch UnnamedFile.make(prefix: "reform-sort-") {
        case .success(let made): file = made
        case .failure(let failure): throw SpillError("creating it", folder: failure.folder, errno: failure.code, purpose: purpose)
        }
        let folder = file.folder
        let fd = file.descriptor
        self.folder = folder
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    /// Appends `bytes` at the end of the file.
    func append(_ bytes: [UInt8]) throws(SpillError) {
        // The buffer's closure cannot throw a typed error: the failure comes out as its result.
        let failure = bytes.withUnsafeBytes { bytes -> SpillError? in
            do throws(SpillError) { try append(bytes) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Appends `bytes` at the end of the file.
    func append(_ bytes: UnsafeRawBufferPointer) throws(SpillError) {
        if let code = PositionedWrite.all(bytes, to: descriptor, at: size) {
            throw SpillError("writing it", folder: folder, errno: code, purpose: purpose)
        }
        size += bytes.count
    }

    /// Appends a sorted run: for each of `positions` in turn, the entry `write` encodes for it,
    /// after its length. Returns where the run lies in the file. `prefetch` is told the index in
    /// `positions` of each entry before it is written, to start loading what later ones read.
    func appendRun(
        _ positions: [Int], prefetch: (Int) -> Void = { _ in }, write: (Int, inout SpillWriter) -> Void
    ) throws(SpillError) -> Range<Int> {
        let start = size
        var writer = SpillWriter()
        var entry = SpillWriter()
        for (index, position) in positions.enumerated() {
            prefetch(index)
            entry.bytes.removeAll(keepingCapacity: true)
            write(position, &entry)
            writer.unsigned(UInt64(entry.bytes.count))
            writer.bytes.append(contentsOf: entry.bytes)
            if writer.bytes.count >= 1 << 20 {
                try append(writer.bytes)
                writer.bytes.removeAll(keepingCapacity: true)
            }
        }
        try append(writer.bytes)
        return start..<size
    }

    /// Reads up to `count` bytes at `offset` into `buffer`; returns how many it read.
    func read(at offset: Int, count: Int, into buffer: UnsafeMutableRawPointer) throws(SpillError) -> Int {
        while true {
            let got = pread(descriptor, buffer, count, off_t(offset))
            if got >= 0 { return got }
            if errno != EINTR { throw SpillError("reading it back", folder: folder, errno: errno, purpose: purpose) }
        }
    }
}
