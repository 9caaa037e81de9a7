import ReformSDK

/// libFuzzer entry: parse the bytes as JSON; whatever parses must write and re-parse to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let limits = JSONLimits(maximumDepth: 512, maximumDocumentSize: 1 << 20)
    guard let value = try? JSON.parse(bytes, limits: limits) else { return 0 }
    let written = JSON.compactString(value)
    guard let again = try? JSON.parse(written, limits: JSONLimits(maximumDepth: 513, maximumDocumentSize: 1 << 24)) else {
        fatalError("written JSON does not parse again: \(written)")
    }
    guard JSON.compactString(again) == written else { fatalError("round trip changed \(written)") }
    return 0
}
