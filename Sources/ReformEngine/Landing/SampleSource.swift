/// A manager's landings thinned to `count` chosen evenly at random (reservoir sampling, algorithm
/// R, with a fixed seed so the same input gives the same sample), replayed in input order.
///
/// Every input is read to the end at the first ``next()``, its bytes reported as it goes (the
/// progress line moves during what can be a long read); memory holds only the sample.
final class SampleSource: RecordSource {
    private let sources: [any RecordSource]
    private let count: Int
    private var kept: [(index: Int, landed: Landed, input: String)]?
    private var position = 0
    private(set) var inputName = ""
    private var bytesObserver: ((Int) -> Void)?

    init(_ sources: [any RecordSource], count: Int) throws(SourceError) {
        self.sources = sources
        self.count = count
    }

    func observeBytes(_ handler: @escaping (Int) -> Void) { bytesObserver = handler }

    func next() throws(SourceError) -> Landed? {
        if self.kept == nil { self.kept = try sample() }
        guard let kept, position < kept.count else { return nil }
        defer { position += 1 }
        inputName = kept[position].input
        return kept[position].landed
    }

    /// Reads every input and keeps the sample, in input order.
    private func sample() throws(SourceError) -> [(index: Int, landed: Landed, input: String)] {
        var kept: [(index: Int, landed: Landed, input: String)] = []
        var random = SplitMix64(seed: 0x5EED_5A3F_1E00_0001)
        var seen = 0
        // The bytes of the inputs read before the current one, so the count only grows.
        var before = 0
        for source in sources {
            var read = 0
            if let bytesObserver {
                source.observeBytes { bytes in
                    read = bytes
                    bytesObserver(before + bytes)
                }
            }
            while let landed = try source.next() {
                if kept.count < count {
                    kept.append((seen, landed, source.inputName))
                } else if count > 0 {
                    let slot = Int(random.next() % UInt64(seen + 1))
                    if slot < count { kept[slot] = (seen, landed, source.inputName) }
                }
                seen += 1
            }
            before += read
        }
        kept.sort { $0.index < $1.index }
        return kept
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
