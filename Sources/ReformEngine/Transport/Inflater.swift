import CZlib

/// zlib's inflate fed in pieces: gzip (any number of members, trailing zero bytes allowed) or
/// zlib data, or raw deflate. A body held in memory is one piece (``ContentDecoding``); a result
/// file streamed to disk is fed as it arrives, so that what it inflates to never has to fit in
/// memory. The checks are the same either way: data cut short, damaged, or followed by other
/// bytes is refused.
final class Inflater {
    /// The stream lives at a fixed address: zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>
    private let raw: Bool
    private var output: [UInt8]
    /// Compressed bytes taken so far, and what they inflated to.
    private(set) var consumed = 0
    private(set) var inflated = 0
    /// Where the data stands: inside a member, after one (another may follow), or in the zero
    /// bytes some servers pad a file with.
    private var state = State.inMember
    private enum State { case inMember, afterMember, padding }

    /// An inflater for gzip or zlib data (`raw: false`, the header says which) or raw deflate.
    init(raw: Bool) throws(ContentDecoding.Problem) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.raw = raw
        output = [UInt8](repeating: 0, count: 1 << 16)
        // 15 + 32: the largest window, gzip or zlib header detected; -15: no header.
        guard inflateInit2_(stream, raw ? -15 : 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            throw .undecodable("zlib could not start")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates `input`, handing the inflated bytes to `emit` a piece at a time (at most 64 KiB).
    func feed(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws(ContentDecoding.Problem) -> Void)
        throws(ContentDecoding.Problem)
    {
        var offset = 0
        while offset < input.count {
            switch state {
            case .padding:
                guard input[offset...].allSatisfy({ $0 == 0 }) else {
                    throw .undecodable("bytes other than padding follow the end of the compressed data")
                }
                consumed += input.count - offset
                return
            case .afterMember:
                // Another gzip member follows (concatenated files, as gzip -d reads them), or
                // zero bytes pad the file.
                if !raw, input[offset] == 0x1f {
                    inflateReset(stream)
                    state = .inMember
                } else if input[offset] == 0 {
                    state = .padding
                } else {
                    throw .undecodable("\(input.count - offset) bytes follow the end of the compressed data")
                }
                continue
            case .inMember:
                break
            }
            let base = input.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + offset }
            let (status, used, produced) = output.withUnsafeMutableBufferPointer { out in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: base)
                stream.pointee.avail_in = UInt32(clamping: input.count - offset)
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = UInt32(out.count)
                let before = Int(stream.pointee.avail_in)
                let status = CZlib.inflate(stream, Z_NO_FLUSH)
                return (status, before - Int(stream.pointee.avail_in), out.count - Int(stream.pointee.avail_out))
            }
            offset += used
            consumed += used
            inflated += produced
            if produced > 0 { try hand(produced, to: emit) }
            switch status {
            case Z_STREAM_END:
                state = .afterMember
            case Z_OK, Z_BUF_ERROR:
                // Z_BUF_ERROR: no progress was possible with what was given; more input comes.
                if used == 0 && produced == 0 && status == Z_BUF_ERROR && offset < input.count {
                    throw .undecodable("the compressed data is damaged (zlib made no progress) at byte \(consumed)")
                }
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw .undecodable("the compressed data is damaged (\(reason)) at byte \(consumed)")
            }
        }
        // All input taken: zlib may still hold output for a full buffer.
        while state == .inMember {
            let (status, produced) = output.withUnsafeMutableBufferPointer { out in
                stream.pointee.next_in = nil
                stream.pointee.avail_in = 0
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = UInt32(out.count)
                let status = CZlib.inflate(stream, Z_NO_FLUSH)
                return (status, out.count - Int(stream.pointee.avail_out))
            }
            inflated += produced
            if produced > 0 { try hand(produced, to: emit) }
            if status == Z_STREAM_END { state = .afterMember }
            guard produced > 0, status == Z_OK || status == Z_STREAM_END else {
                if status != Z_OK && status != Z_BUF_ERROR && status != Z_STREAM_END {
                    let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    throw .undecodable("the compressed data is damaged (\(reason)) at byte \(consumed)")
                }
                return
            }
        }
    }

    /// Hands the first `count` bytes of the output buffer to `emit`.
    private func hand(_ count: Int, to emit: (UnsafeRawBufferPointer) throws(ContentDecoding.Problem) -> Void)
        throws(ContentDecoding.Problem)
    {
        // withUnsafeBytes rethrows untyped: the failure comes out as a value.
        let handed = output.withUnsafeBytes { out in
            Result { () throws(ContentDecoding.Problem) in try emit(UnsafeRawBufferPointer(rebasing: out[..<count])) }
        }
        try handed.get()
    }

    /// Says the input is all given: throws when the compressed data ended inside a member.
    func finish() throws(ContentDecoding.Problem) {
        guard state == .inMember else { return }
        throw .undecodable("the compressed data ends early (after \(consumed) bytes, \(inflated) inflated)")
    }
}
