import ReformSDK

/// Rows rendered as CSV after a chain the compiled path covers: the chain (``CompiledChain``)
/// writes each record it makes of the line as an NDJSON line into a scratch buffer, and
/// ``CompiledRows`` renders each of those as its CSV line.
///
/// Before, such an output ran the chain's compiled start and landed each record, small, for the
/// general path to render (~22,000 instructions a line for a mapping and a filter to five
/// columns). A line either step leaves (the chain's reasons, or a cell value ``CompiledRows``
/// does not write from bytes) goes down the general path whole: what was appended is cut off and
/// the chain's counts taken back, so output, dead letters and counts are the general path's.
struct CompiledChainRows {
    private var chain: CompiledChain
    private var rows: CompiledRows
    /// The chain's NDJSON lines for the current input line, kept to reuse its storage.
    private var scratch: [UInt8] = []

    /// The encoder for `manager` when a run has exactly these outputs and the only one renders
    /// rows as CSV after a chain: the compiled path must cover both.
    static func make(for manager: ManagerRef, outputs: [OutputPlan], format: OutputFormat, limits: JSONLimits) -> CompiledChainRows? {
        guard format == .csv, outputs.count == 1, let output = outputs.first, let shape = output.rows, !output.chain.isEmpty,
            !output.escapesControls,
            let rows = CompiledRows.make(rows: shape, manager: manager, limits: limits, escapeFormulas: output.escapeFormulas == true),
            let chain = CompiledChain.make(chain: output.chain[...], manager: manager, limits: limits)
        else { return nil }
        return CompiledChainRows(chain: chain, rows: rows)
    }

    /// What each reformer of the chain did with the lines taken so far.
    var stageCounts: [ChainRunner.StageCounts] { chain.stageCounts }

    /// Takes back the counts of the line the last ``encode(_:into:)`` took.
    mutating func withdrawLast() { chain.withdrawLast() }

    /// Appends the CSV lines of the records the chain makes of `line` and returns how many; `nil`
    /// (and nothing appended) sends it down the general path.
    mutating func encode(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Int? {
        scratch.removeAll(keepingCapacity: true)
        guard let records = chain.encode(line, into: &scratch) else { return nil }
        let mark = out.count
        var lines: [UInt8] = []
        swap(&lines, &scratch)
        defer { swap(&lines, &scratch) }
        let rendered = lines.withUnsafeBytes { bytes in
            // Each record is one line, ending in a newline.
            var start = 0
            while let end = NDJSONLine.end(in: bytes, from: start) {
                guard rows.encode(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), into: &out) else { return false }
                start = end + 1
            }
            return true
        }
        guard rendered else {
            out.removeSubrange(mark...)
            chain.withdrawLast()
            return nil
        }
        return records
    }
}
