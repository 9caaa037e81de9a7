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
        var input: InputFile
        do { input = try file.input(label: path, chunkSize: block) } catch { throw OutputError(path: path, message: error.message) }
        var chunk = [UInt8](repeating: 0, count: block)
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
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBufferPointer { buffer throws(InputError) -> Int in
                    guard let base = buffer.baseAddress else { return 0 }
                    return try input.read(into: base, count: buffer.count)
                }
            } catch {
                throw OutputError(path: path, message: "cannot read the body to record it: \(error.message)")
            }
            guard count > 0 else { break }
            carried.append(contentsOf: chunk[..<count])
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
}
