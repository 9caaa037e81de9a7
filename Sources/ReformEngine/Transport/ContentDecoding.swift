import CZlib
import ReformHTTP1

/// Bodies compressed in transit (`Content-Encoding: gzip` or `deflate`, which every request
/// accepts) and bodies that are gzip files (`Content-Type: application/gzip`, an export's
/// `.csv.gz`), inflated by the system zlib before the body is parsed, never past the transport's
/// body limit (a small body that inflates without end is refused, not held).
enum ContentDecoding {
    /// The `Accept-Encoding` a request sends unless its service sets one (`identity` turns
    /// compression off).
    static let accepted = "gzip, deflate"

    /// Why a body could not be inflated.
    enum Problem: Error {
        /// It inflates past the limit.
        case tooLarge
        /// It is not what its encoding says: the reason.
        case undecodable(String)
    }

    /// The body as it was before compression, or `nil` when it was not compressed: inflated when
    /// `Content-Encoding` says gzip, x-gzip or deflate, or when it is a gzip file (a gzip content
    /// type, or `application/octet-stream` starting with gzip's magic bytes).
    static func decoded(_ bytes: [UInt8], headers: [QueryItem], limit: Int) throws(Problem) -> [UInt8]? {
        guard !bytes.isEmpty else { return nil }
        let encoding = headers.first { ASCIICase.equals($0.name, "content-encoding") }?.value ?? ""
        var codings = encoding.split(separator: ",").map { $0.trimmingCharacters(in: " ").lowercased() }
        codings.removeAll { $0.isEmpty || $0 == "identity" }
        if codings.isEmpty {
            let type = (headers.first { ASCIICase.equals($0.name, "content-type") }?.value ?? "").lowercased()
            let gzipFile = type.hasPrefix("application/gzip") || type.hasPrefix("application/x-gzip")
            let magic = bytes.count >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
            guard gzipFile || (magic && type.hasPrefix("application/octet-stream")) else { return nil }
            return try inflate(bytes, limit: limit, raw: false)
        }
        guard codings.count == 1, let coding = codings.first else {
            throw .undecodable("the body is encoded '\(encoding)' (several codings); only gzip or deflate is accepted")
        }
        switch coding {
        case "gzip", "x-gzip":
            return try inflate(bytes, limit: limit, raw: false)
        case "deflate":
            // RFC 9110 deflate is zlib-wrapped; some servers send raw deflate data instead.
            let zlibHeader = bytes.count >= 2 && bytes[0] & 0x0f == 8 && (UInt16(bytes[0]) << 8 | UInt16(bytes[1])) % 31 == 0
            guard zlibHeader else { return try inflate(bytes, limit: limit, raw: true) }
            do { return try inflate(bytes, limit: limit, raw: false) } catch {
                // Raw deflate data can start with two bytes that read as a zlib header.
                guard case .undecodable = error, let raw = try? inflate(bytes, limit: limit, raw: true) else { throw error }
                return raw
            }
        default:
            throw .undecodable(
                "the body is encoded '\(encoding)', which was not asked for (the request accepts \(accepted)); "
                    + "set the service's 'Accept-Encoding' header to what the server should send")
        }
    }

    /// `bytes` inflated: gzip (any number of members) or zlib data, or raw deflate when `raw`.
    private static func inflate(_ bytes: [UInt8], limit: Int, raw: Bool) throws(Problem) -> [UInt8] {
        var stream = z_stream()
        // 15 + 32: the largest window, gzip or zlib header detected; -15: no header.
        guard inflateInit2_(&stream, raw ? -15 : 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .undecodable("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, max(bytes.count * 4, 1 << 16)))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var consumed = 0
        while true {
            let (status, used, produced) = bytes.withUnsafeBufferPointer { input in
                chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0 + consumed })
                    stream.avail_in = UInt32(input.count - consumed)
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, input.count - consumed - Int(stream.avail_in), out.count - Int(stream.avail_out))
                }
            }
            consumed += used
            guard output.count + produced <= limit else { throw .tooLarge }
            output.append(contentsOf: chunk[..<produced])
            switch status {
            case Z_STREAM_END:
                let rest = bytes[consumed...]
                // Another gzip member follows (concatenated files, as gzip -d reads them).
                if !raw, rest.count >= 2, rest.first == 0x1f, rest.dropFirst().first == 0x8b {
                    inflateReset(&stream)
                    continue
                }
                guard rest.allSatisfy({ $0 == 0 }) else {
                    throw .undecodable("\(rest.count) bytes follow the end of the compressed data")
                }
                return output
            case Z_OK:
                continue
            case Z_BUF_ERROR where consumed == bytes.count:
                throw .undecodable("the compressed data ends early (after \(bytes.count) bytes, \(output.count) inflated)")
            case Z_BUF_ERROR:
                continue
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw .undecodable("the compressed data is damaged (\(reason)) at byte \(consumed)")
            }
        }
    }
}
