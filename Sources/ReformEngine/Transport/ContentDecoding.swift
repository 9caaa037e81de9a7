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

    /// How a body is to be inflated, from its headers.
    enum Coding: Equatable {
        /// Not compressed.
        case identity
        /// gzip (or zlib) data.
        case gzip
        /// `Content-Encoding: deflate`: zlib-wrapped as RFC 9110 says, or raw deflate data as some
        /// servers send; the first two bytes tell.
        case deflate
        /// `application/octet-stream`: a gzip file when it starts with gzip's magic bytes.
        case gzipIfMagic

        /// The coding of a body that starts with `start` (at least its first two bytes): the
        /// inflater to use, `nil` when it is not compressed.
        func inflater(start: some Collection<UInt8>) throws(Problem) -> Inflater? {
            let first = Array(start.prefix(2))
            switch self {
            case .identity: return nil
            case .gzip: return try Inflater(raw: false)
            case .gzipIfMagic: return first == [0x1f, 0x8b] ? try Inflater(raw: false) : nil
            case .deflate: return try Inflater(raw: !Coding.hasZlibHeader(first))
            }
        }

        /// Whether two bytes read as a zlib header (which raw deflate data can also start with).
        static func hasZlibHeader(_ first: [UInt8]) -> Bool {
            first.count >= 2 && first[0] & 0x0f == 8 && (UInt16(first[0]) << 8 | UInt16(first[1])) % 31 == 0
        }
    }

    /// How a body with `headers` is to be inflated: `Content-Encoding` gzip, x-gzip or deflate,
    /// or a gzip file (a gzip content type, or `application/octet-stream` starting with gzip's
    /// magic bytes).
    static func coding(of headers: [QueryItem]) throws(Problem) -> Coding {
        let encoding = headers.first { ASCIICase.equals($0.name, "content-encoding") }?.value ?? ""
        var codings = encoding.split(separator: ",").map { $0.trimmingCharacters(in: " ").lowercased() }
        codings.removeAll { $0.isEmpty || $0 == "identity" }
        if codings.isEmpty {
            let type = (headers.first { ASCIICase.equals($0.name, "content-type") }?.value ?? "").lowercased()
            if type.hasPrefix("application/gzip") || type.hasPrefix("application/x-gzip") { return .gzip }
            return type.hasPrefix("application/octet-stream") ? .gzipIfMagic : .identity
        }
        guard codings.count == 1, let coding = codings.first else {
            throw .undecodable("the body is encoded '\(encoding)' (several codings); only gzip or deflate is accepted")
        }
        switch coding {
        case "gzip", "x-gzip": return .gzip
        case "deflate": return .deflate
        default:
            throw .undecodable(
                "the body is encoded '\(encoding)', which was not asked for (the request accepts \(accepted)); "
                    + "set the service's 'Accept-Encoding' header to what the server should send")
        }
    }

    /// The body as it was before compression, or `nil` when it was not compressed (see
    /// ``coding(of:)``).
    static func decoded(_ bytes: [UInt8], headers: [QueryItem], limit: Int) throws(Problem) -> [UInt8]? {
        guard !bytes.isEmpty else { return nil }
        let coding = try coding(of: headers)
        guard let inflater = try coding.inflater(start: bytes) else { return nil }
        do { return try inflate(bytes, with: inflater, limit: limit) } catch {
            // Raw deflate data can start with two bytes that read as a zlib header.
            guard coding == .deflate, Coding.hasZlibHeader(Array(bytes.prefix(2))), case .undecodable = error,
                let raw = try? inflate(bytes, with: Inflater(raw: true), limit: limit)
            else { throw error }
            return raw
        }
    }

    /// `bytes` inflated by `inflater`, at most `limit` bytes of it.
    private static func inflate(_ bytes: [UInt8], with inflater: Inflater, limit: Int) throws(Problem) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, max(bytes.count * 4, 1 << 16)))
        // withUnsafeBytes rethrows untyped: the failure comes out as a value.
        let fed = bytes.withUnsafeBytes { input in
            Result { () throws(Problem) in
                try inflater.feed(input) { piece throws(Problem) in
                    guard output.count + piece.count <= limit else { throw .tooLarge }
                    output.append(contentsOf: piece)
                }
            }
        }
        try fed.get()
        try inflater.finish()
        return output
    }
}
