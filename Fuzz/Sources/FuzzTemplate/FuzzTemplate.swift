import ReformEngine
import ReformSDK

/// libFuzzer entry: parse the bytes as a row template and render it against a small record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let template = try? Template(parsing: text) else { return 0 }
    _ = template.paths
    _ = template.description
    _ = try? template.render(record)
    return 0
}

/// The record every parsed template is rendered against.
let record: Value = (try? JSON.parse(#"{"id": 7, "name": "Ann", "tags": ["a", "b"], "address": {"city": "Oslo"}}"#)) ?? .null
