import ReformEngineTesting

/// libFuzzer entry: the bytes seed a generated pipeline and generated records (as
/// `GeneratedTierTests` does with fixed seeds), which run on every execution tier; a tier that
/// writes, rejects or counts otherwise than the general path stops the fuzzer with the case.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTiers(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var seed: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in UnsafeBufferPointer(start: data, count: size) { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01B3 }
    var random = SplitMix(state: seed)
    let generated = ChainGenerator().pipeline(using: &random)
    let lines = RecordGenerator().lines(count: Int.random(in: 1...40, using: &random), using: &random)
    guard let differences = try? generated.check(lines: lines).differences(tiers: generated.tiers), let difference = differences.first
    else { return 0 }
    fatalError("tiers differ\n\(generated.pipeline)\nlines:\n\(lines.joined(separator: "\n"))\n\(difference)")
}

/// SplitMix64, seeded from the input's bytes.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
