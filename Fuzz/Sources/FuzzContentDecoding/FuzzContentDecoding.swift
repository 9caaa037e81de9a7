@_spi(Fuzzing) import ReformEngine

/// libFuzzer entry: the bytes as a compressed response body (gzip, deflate, a gzip file), which
/// must inflate or be refused, never crash, hang or pass the limit; and the bytes compressed by
/// zlib (gzip, zlib and raw deflate, one or two gzip members), which must inflate back exactly.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentDecoding(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limit = 1 << 16
    for encoding in ["gzip", "deflate", ""] {
        if case .success(let inflated?) = ContentDecodingFuzzing.decode(bytes, encoding: encoding, limit: limit) {
            precondition(inflated.count <= limit, "inflated past the limit")
        }
    }
    guard bytes.count <= limit else { return 0 }
    for (encoding, windowBits) in [("gzip", Int32(31)), ("deflate", 15), ("deflate", -15), ("", 31)] {
        let packed = ContentDecodingFuzzing.compressed(bytes, windowBits: windowBits)
        let result = ContentDecodingFuzzing.decode(packed, encoding: encoding, limit: limit)
        guard case .success(let inflated) = result else { preconditionFailure("\(encoding) \(windowBits): \(result)") }
        precondition(inflated ?? packed == bytes || (bytes.isEmpty && inflated == nil), "\(encoding) \(windowBits) inflated to other bytes")
    }
    let half = bytes.count / 2
    let members =
        ContentDecodingFuzzing.compressed(Array(bytes[..<half]), windowBits: 31)
        + ContentDecodingFuzzing.compressed(Array(bytes[half...]), windowBits: 31)
    if case .success(let inflated?) = ContentDecodingFuzzing.decode(members, encoding: "gzip", limit: limit) {
        precondition(inflated == bytes, "two gzip members inflated to other bytes")
    } else {
        preconditionFailure("two gzip members refused")
    }
    return 0
}
