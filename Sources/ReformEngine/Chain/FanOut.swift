import ReformSDK

/// The fast path of a run with several outputs: one ``LineEncoder`` per output, each turning the
/// same NDJSON line into that output's lines, when the compiled path covers every output's chain.
///
/// A line is taken only when every output takes it. When one sends it down the general path (an
/// escape a conversion must parse, a record a step rejects, invalid JSON), what the outputs before
/// it appended is cut off again and their counts taken back, and the general path lands the line
/// for every output — so each output's bytes, the dead letters (in output order, as the general
/// path writes them) and the counts are what the general path makes alone.
///
/// Without it such a run parsed every line whole into values and ran each chain on them
/// (~95,000 instructions a line for a mapped and an exploded output, against ~22,000 compiled).
struct FanOut {
    private var encoders: [LineEncoder]
    /// Records written to each output so far.
    private(set) var written: [Int]
    /// Lines taken (written to every output).
    private(set) var handled = 0
    /// This line's records and each output's length before it, kept to reuse their storage.
    private var records: [Int]
    private var marks: [Int]

    private init(encoders: [LineEncoder]) {
        self.encoders = encoders
        written = encoders.map { _ in 0 }
        records = written
        marks = written
    }

    /// The fan-out for `manager` when the run has more than one output, each written as its
    /// format (`nil`: a table, which the fast path does not cover here) by a chain the compiled
    /// path covers whole (``LineEncoder/make(for:outputs:format:limits:)`` with that output alone).
    static func make(for manager: ManagerRef, outputs: [OutputPlan], formats: [OutputFormat?], limits: JSONLimits) -> FanOut? {
        guard outputs.count > 1, formats.count == outputs.count else { return nil }
        var encoders: [LineEncoder] = []
        for (output, format) in zip(outputs, formats) {
            guard let format, let encoder = LineEncoder.make(for: manager, outputs: [output], format: format, limits: limits) else {
                return nil
            }
            encoders.append(encoder)
        }
        return FanOut(encoders: encoders)
    }

    /// How many outputs the lines go to.
    var outputs: Int { encoders.count }

    /// What each reformer of output `index`'s chain did with the lines taken so far.
    func stageCounts(of index: Int) -> [ChainRunner.StageCounts] { encoders[index].stageCounts }

    /// Appends each output's lines for the record in `line` to `buffers[output]`; `false` (and
    /// nothing appended or counted) sends the line down the general path for every output.
    mutating func encode(_ line: UnsafeRawBufferPointer, into buffers: inout [[UInt8]]) -> Bool {
        for output in encoders.indices {
            marks[output] = buffers[output].count
            guard let count = encoders[output].encode(line, into: &buffers[output]) else {
                for taken in 0..<output {
                    encoders[taken].withdrawLast()
                    buffers[taken].removeSubrange(marks[taken]...)
                }
                return false
            }
            records[output] = count
        }
        for output in written.indices { written[output] += records[output] }
        handled += 1
        return true
    }
}
