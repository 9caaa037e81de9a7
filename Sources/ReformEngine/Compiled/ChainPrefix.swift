import ReformSDK

/// The compiled path for the start of a chain whose end it does not cover (a `sort` or `dedupe`
/// that needs every record, rows, a format other than NDJSON): each NDJSON line runs through the
/// compiled reformers as bytes and lands as the small record they make, which the general path
/// takes from the next reformer on (``Landed/reformed(_:line:page:stages:)``).
///
/// A line the compiled reformers cannot take lands as usual and runs through the whole chain, so
/// output, dead letters and counts are the same either way (`CompiledChainTests`).
final class ChainPrefix {
    private var chain: CompiledChain
    /// How many reformers at the chain's start the compiled path ran.
    let stages: Int
    private var parser: JSONParser
    private var scratch: [UInt8] = []
    /// Lines a filter of the compiled reformers dropped (they never land).
    private(set) var dropped = 0
    /// What each compiled reformer did with the lines taken so far, in chain order.
    var stageCounts: [ChainRunner.StageCounts] { chain.stageCounts }

    /// The prefix for `manager`'s records in a run with these outputs, when the compiled path
    /// covers at least the chain's first reformer (see ``CompiledChain/makePrefix(for:outputs:limits:)``).
    init?(for manager: ManagerRef, outputs: [OutputPlan], limits: JSONLimits) {
        guard let (chain, stages) = CompiledChain.makePrefix(for: manager, outputs: outputs, limits: limits) else { return nil }
        self.chain = chain
        self.stages = stages
        parser = JSONParser(limits: limits)
    }

    /// The record the compiled reformers make of `line`: `.some(nil)` when a filter drops it,
    /// `nil` when the line takes the general path.
    func reform(_ line: UnsafeRawBufferPointer) -> Value?? {
        scratch.removeAll(keepingCapacity: true)
        guard let count = chain.encode(line, into: &scratch) else { return nil }
        if count > 0, chain.wroteIntegralDouble {
            // Its record would read back with an int where the general path has a double.
            chain.withdrawLast()
            return nil
        }
        if count == 0 {
            dropped += 1
            return .some(nil)
        }
        let record = scratch.withUnsafeBytes { bytes in
            try? parser.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - 1)]))
        }
        guard let record else { return nil }
        return .some(record)
    }
}

extension ChainPrefix: LineFastPath {
    /// Each line the general path would land is offered to ``reform(_:)`` first.
    func attach(to reader: inout NDJSONReader, input: String) {
        reader.lineReformer = { self.reform($0) }
    }

    var reformedStages: Int? { stages }
    var handled: Int { dropped }
    var outputsWrittenForLastLine: [Bool]? { nil }
    var counts: [DirectCounts] { [DirectCounts(written: 0, stages: stageCounts)] }
}
