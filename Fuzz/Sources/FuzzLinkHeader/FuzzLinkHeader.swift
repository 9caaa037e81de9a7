import ReformEngine

/// libFuzzer entry: find `next` and `last` in the bytes read as a `Link` header.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLinkHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let header = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = LinkHeader.next(header)
    _ = LinkHeader.target(of: "last", in: header)
    return 0
}
