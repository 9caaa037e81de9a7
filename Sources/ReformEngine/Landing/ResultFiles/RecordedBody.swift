import CZlib
import ReformSystem

/// A result file's body recorded beside its exchange (`NNN.body.csv.gz`), gzip-compressed and
/// with the service's secrets redacted as in every recorded text, a block of whole lines at a time
/// (memory stays bounded by the block, whatever the file's size).
enum RecordedBody {
    /// The most bytes redacted at once; a line longer than this is redacted in pieces.
    static let block = 1 << 20

    /// Copies `file` to `path`, gzip-compressed, each block of lines through `redact`.
    static func write(_ file: ResponseFile, to path: String, redact: (String) -> String) throws(OutputError) {
        guard let output = gzopen(path, "wb6e") else {
            throw OutputError(path: path, message: "cannot write the recorded body: \(String(cString: strerror(errno)))")
        }
        var closed = false
        defer { if !closed { gzclose(output) } }
        let reader = try Reader(file, label: path)
        var carried: [UInt8] = []
        func put(_ bytes: ArraySlice<UInt8>) throws(OutputError) {
            guard !bytes.isEmpty else { return }
            let text = String(decoding: bytes, as: UTF8.self)
            let hidden = redact(text)
            // Bytes with no secret in them are kept as they came (no UTF-8 repair).
            let out = hidden == text ? Array(bytes) : Array(hidden.utf8)
            let written = out.withUnsafeBytes { gzwrite(output, $0.baseAddress, UInt32($0.count)) }
            guard written == out.count else {
                throw OutputError(path: path, message: "cannot write the recorded body (zlib error \(written))")
            }
        }
        while let chunk = try reader.next() {
            carried.append(contentsOf: chunk)
            // Redacted a block of whole lines at a time, so that no secret is cut in two; a line
            // past the block is cut after a byte no secret holds (a space, a quote, a delimiter),
            // which is also where no UTF-8 character is cut.
            if let cut = carried.lastIndex(of: 0x0A) ?? (carried.count >= block ? carried.lastIndex(where: RecordedBody.isBreak) : nil) {
                try put(carried[...cut])
                carried.removeFirst(cut + 1)
            } else if carried.count >= 16 * block {
                // Not one break in 16 MiB: no longer a line of text a secret is written in.
                try put(carried[...])
                carried.removeAll(keepingCapacity: true)
            }
        }
        try put(carried[...])
        closed = true
        guard gzclose(output) == Z_OK else {
            throw OutputError(path: path, message: "cannot finish the recorded body: \(String(cString: strerror(errno)))")
        }
    }

    /// Whether `byte` ends a token rather than sits in one: white space, quotes and the
    /// delimiters of CSV and JSON.
    static func isBreak(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x0D, 0x20, UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "}"),
            UInt8(ascii: "]"), UInt8(ascii: "<"), UInt8(ascii: ">"):
            return true
        default:
            return false
        }
    }

    /// A response file's bytes in blocks (inflated, for a gzip fixture).
    private final class Reader {
        private let descriptor: Int32
        private let gzip: gzFile?
        private var offset = 0
        private let label: String

        init(_ file: ResponseFile, label: String) throws(OutputError) {
            self.label = label
            do { descriptor = try file.reopened() } catch { throw OutputError(path: label, message: error.description) }
            gzip = file.isGzip ? gzdopen(descriptor, "rb") : nil
        }

        deinit {
            if let gzip { gzclose(gzip) } else { close(descriptor) }
        }

        func next() throws(OutputError) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: RecordedBody.block)
            while true {
                let count = bytes.withUnsafeMutableBytes { buffer in
                    if let gzip { return Int(gzread(gzip, buffer.baseAddress, UInt32(buffer.count))) }
                    return read(descriptor, buffer.baseAddress, buffer.count)
                }
                if count < 0 && errno == EINTR && gzip == nil { continue }
                guard count >= 0 else {
                    throw OutputError(path: label, message: "cannot read the body to record it: \(String(cString: strerror(errno)))")
                }
                guard count > 0 else { return nil }
                offset += count
                return Array(bytes.prefix(count))
            }
        }
    }
}
