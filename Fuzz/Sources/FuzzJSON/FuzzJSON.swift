@_spi(Engine) import ReformSDK

/// The one member the locator is asked for in the fuzzed documents.
private let plan = JSONLocatePlan(levels: [JSONProjection(keys: ["keep"])], children: [[]])

/// libFuzzer entry: parse the bytes as JSON; whatever parses must write and re-parse to the same
/// value, and when `JSON.isWrittenForm` says the bytes are the writer's own, writing the value
/// must give them back (and rewriting them, when the verdict says that is enough, must give what
/// writing the value gives). The locator the compiled chains read records with (whose
/// strings a vector kernel skips) must accept the bytes as a skipped member and as a kept one
/// exactly when parsing accepts them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let limits = JSONLimits(maximumDepth: 512, maximumDocumentSize: 1 << 20)
    checkLocator(bytes, limits: limits)
    guard let value = try? JSON.parse(bytes, limits: limits) else { return 0 }
    let written = JSON.compactString(value)
    if JSON.isWrittenForm(bytes), Array(written.utf8) != Array(bytes) {
        fatalError("isWrittenForm said yes to bytes the writer prints as \(written)")
    }
    var parser = JSONParser(limits: limits)
    var rewritten: [UInt8] = []
    if parser.appendWrittenForm(of: bytes, to: &rewritten), rewritten != Array(written.utf8) {
        fatalError("rewriting gave \(String(decoding: rewritten, as: UTF8.self)), the writer prints \(written)")
    }
    guard let again = try? JSON.parse(written, limits: JSONLimits(maximumDepth: 513, maximumDocumentSize: 1 << 24)) else {
        fatalError("written JSON does not parse again: \(written)")
    }
    guard JSON.compactString(again) == written else { fatalError("round trip changed \(written)") }
    return 0
}

/// Fails when locating `{"skip":BYTES,"keep":1}` or `{"keep":BYTES}` disagrees with parsing it.
private func checkLocator(_ bytes: UnsafeRawBufferPointer, limits: JSONLimits) {
    for (before, after) in [(#"{"skip":"#, #","keep":1}"#), (#"{"keep":"#, "}")] {
        let document = Array(before.utf8) + Array(bytes) + Array(after.utf8)
        var parser = JSONParser(limits: limits)
        var ranges: [Range<Int>?] = []
        var canonical: [Bool] = []
        let located = document.withUnsafeBytes { parser.locate($0, plan: plan, into: &ranges, canonical: &canonical) }
        let parses = (try? JSON.parse(document, limits: limits)) != nil
        guard located == parses else {
            fatalError("locate \(located ? "accepted" : "refused") what parsing \(parses ? "accepted" : "refused"): \(document)")
        }
    }
}
