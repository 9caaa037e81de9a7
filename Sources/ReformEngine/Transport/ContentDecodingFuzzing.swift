import CZlib
import ReformHTTP1

/// The entry point of the `FuzzContentDecoding` libFuzzer target (`Fuzz/`) into the inflating of
/// compressed bodies, through the code a live response goes through. Not API: `@_spi(Fuzzing)`
/// keeps it out of the library's public surface.
@_spi(Fuzzing) public enum ContentDecodingFuzzing {
    /// What decoding `body` sent with `Content-Encoding: encoding` (or, when `encoding` is empty,
    /// as an `application/gzip` file) gives at most `limit` bytes: the bytes, `nil` when it was
    /// not compressed, or the reason it was refused.
    public static func decode(_ body: [UInt8], encoding: String, limit: Int) -> Result<[UInt8]?, DecodingRefusal> {
        do { return .success(try ContentDecoding.decoded(body, headers: headers(encoding), limit: limit)) } catch {
            switch error {
            case .tooLarge: return .failure(DecodingRefusal(tooLarge: true, reason: "too large"))
            case .undecodable(let reason): return .failure(DecodingRefusal(tooLarge: false, reason: reason))
            }
        }
    }

    /// What streaming `body` to a result file gives (``ResponseFileSink``, as a download is
    /// stored), fed in pieces of the sizes in `pieces` (taken in turn): the bytes stored, or the
    /// reason it was refused. Held against ``decode(_:encoding:limit:)`` by generated inputs.
    public static func decodeStreamed(_ body: [UInt8], encoding: String, pieces: [Int]) -> Result<[UInt8], DecodingRefusal> {
        let headers = headers(encoding).map { HTTP1Field(name: $0.name, value: $0.value) }
        let file: ResponseFile
        do { file = try ResponseFile.temporary() } catch { return .failure(DecodingRefusal(tooLarge: false, reason: error.description)) }
        let sink = ResponseFileSink(file: file, idleSeconds: 60)
        do throws(HTTP1Failure) {
            _ = try sink.accepts(status: 200, headers: headers)
            var offset = 0
            var turn = 0
            while offset < body.count {
                let size = max(1, pieces.isEmpty ? body.count : pieces[turn % pieces.count])
                let end = min(body.count, offset + size)
                let written = body[offset..<end].withUnsafeBytes { piece in Result { () throws(HTTP1Failure) in try sink.write(piece) } }
                try written.get()
                offset = end
                turn += 1
            }
            try sink.finish()
        } catch {
            return .failure(DecodingRefusal(tooLarge: false, reason: sink.failure?.message ?? "\(error)"))
        }
        return .success(file.read(file.byteCount, at: 0))
    }

    /// The headers a body is sent with: `Content-Encoding: encoding`, or when `encoding` is
    /// empty, a gzip file's content type.
    private static func headers(_ encoding: String) -> [QueryItem] {
        encoding.isEmpty
            ? [QueryItem(name: "Content-Type", value: "application/gzip")] : [QueryItem(name: "Content-Encoding", value: encoding)]
    }

    /// `bytes` deflated by zlib with `windowBits` (31: gzip, 15: zlib, -15: raw deflate), as a
    /// server compresses a body: what the fuzz targets check inflating against.
    public static func compressed(_ bytes: [UInt8], windowBits: Int32) -> [UInt8] {
        var stream = z_stream()
        deflateInit2_(&stream, 6, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
        let written = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                deflate(&stream, Z_FINISH)
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(output.prefix(written))
    }

    /// Why a body was refused.
    public struct DecodingRefusal: Error {
        /// Whether it inflates past the limit.
        public let tooLarge: Bool
        /// The reason.
        public let reason: String
    }
}
