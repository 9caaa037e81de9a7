import ReformSDK

/// The fast path of a run with several outputs: one ``LineEncoder`` for each output whose chain
/// the compiled path covers, each turning the same NDJSON line into that output's lines.
///
/// A line is taken only when every such output takes it. When one sends it down the general path
/// (an escape a conversion must parse, a record a step rejects, invalid JSON), what the outputs
/// before it appended is cut off again and their counts taken back, and the general path lands
/// the line for every output — so each output's bytes, the dead letters (in output order, as the
/// general path writes them) and the counts are what the general path makes alone.
///
/// Outputs it does not cover (a table, a JSON array, a plugin's chain) are left to the general
/// path: a line the others took still lands, for those outputs only (``isPartial``). A line the
/// compiled outputs take is one their chains accept without a rejection, so the dead letters of
/// such a line can only come from the outputs left to the general path, as they would there.
///
/// Without it such a run parsed every line whole into values and ran each chain on them
/// (~95,000 instructions a line for a mapped and an exploded output, against ~22,000 compiled).
struct FanOut {
    /// Per output, its encoder; `nil` for an output left to the general path.
    private var encoders: [LineEncoder?]
    /// Per output, whether this writes it (its encoder is set).
    let covers: [Bool]
    /// Per output, the kind of its encoder; `nil` for an output left to the general path.
    var kinds: [LineEncoder.Kind?] { encoders.map { $0?.kind } }
    /// Whether some outputs are left to the general path.
    let isPartial: Bool
    /// When one output is left to the general path and the compiled path covers its chain's start
    /// (``ChainPrefix``): that output and its start, which a line the others took runs through
    /// before it lands, small, for the rest of that chain.
    let rest: (output: Int, prefix: ChainPrefix)?
    /// Records written to each output so far.
    private(set) var written: [Int]
    /// This line's records and each output's length before it, kept to reuse their storage.
    private var records: [Int]
    private var marks: [Int]
    /// When two or more outputs are compiled chains: their key paths located in one pass over the
    /// line (a pass per chain was a fifth of a run writing a mapped and an exploded output), and
    /// per output, where its chain's paths are among them.
    private var shared: FieldLocator
    private let sharing: Bool
    private let sharedPaths: [[Int]?]
    private var parser: JSONParser

    private init(encoders: [LineEncoder?], rest: (output: Int, prefix: ChainPrefix)?, limits: JSONLimits) {
        self.encoders = encoders
        covers = encoders.map { $0 != nil }
        isPartial = covers.contains(false)
        self.rest = rest
        written = encoders.map { _ in 0 }
        records = written
        marks = written
        parser = JSONParser(limits: limits)
        var union: [[String]] = []
        let chains = encoders.map { $0?.chainPaths }
        let located = chains.map { paths in
            paths.map { paths in
                paths.map { path in
                    if let index = union.firstIndex(of: path) { return index }
                    union.append(path)
                    return union.count - 1
                }
            }
        }
        sharing = chains.compactMap { $0 }.count >= 2
        shared = FieldLocator(paths: sharing ? union : [])
        sharedPaths = sharing ? located : encoders.map { _ in nil }
    }

    /// The fan-out for `manager` when the run has more than one output and the compiled path
    /// covers at least one output's chain whole (``LineEncoder/make(for:outputs:format:limits:)``
    /// with that output alone, written as its format; `nil`: a table, never covered here).
    static func make(for manager: ManagerRef, outputs: [OutputPlan], formats: [OutputFormat?], limits: JSONLimits) -> FanOut? {
        guard outputs.count > 1, formats.count == outputs.count else { return nil }
        let encoders = zip(outputs, formats).map { output, format in
            format.flatMap { LineEncoder.make(for: manager, outputs: [output], format: $0, limits: limits) }
        }
        guard encoders.contains(where: { $0 != nil }) else { return nil }
        let left = encoders.indices.filter { encoders[$0] == nil }
        let rest = left.count == 1 ? ChainPrefix(for: manager, outputs: [outputs[left[0]]], limits: limits).map { (left[0], $0) } : nil
        return FanOut(encoders: encoders, rest: rest, limits: limits)
    }

    /// How many outputs the run has.
    var outputs: Int { encoders.count }

    /// What each reformer of output `index`'s chain did with the lines taken so far (for the
    /// output left to the general path, its compiled start's; none for the others left).
    func stageCounts(of index: Int) -> [ChainRunner.StageCounts]? {
        if let rest, rest.output == index { return rest.prefix.stageCounts }
        return encoders[index]?.stageCounts
    }

    /// Appends each covered output's lines for the record in `line` to `buffers[output]`; `false`
    /// (and nothing appended or counted) sends the line down the general path for every output.
    mutating func encode(_ line: UnsafeRawBufferPointer, into buffers: inout [[UInt8]]) -> Bool {
        // Any locate fails exactly when the line is invalid or beyond the limits: one for all.
        if sharing, !shared.locate(line, parser: &parser) { return false }
        for output in encoders.indices where covers[output] {
            marks[output] = buffers[output].count
            let encoded: Int?
            if let paths = sharedPaths[output] {
                encoded = encoders[output]?.encode(line, into: &buffers[output], locatedBy: shared, sharedPaths: paths)
            } else {
                encoded = encoders[output]?.encode(line, into: &buffers[output])
            }
            guard let count = encoded else {
                takeBack(outputsBefore: output, from: &buffers)
                return false
            }
            records[output] = count
        }
        for output in written.indices where covers[output] { written[output] += records[output] }
        return true
    }

    /// Takes back the line the last ``encode(_:into:)`` took: what it appended to `buffers` and
    /// its counts (an output written apart from the fan-out, a table, then refused the line).
    mutating func withdrawLast(from buffers: inout [[UInt8]]) {
        takeBack(outputsBefore: encoders.count, from: &buffers)
        for output in written.indices where covers[output] { written[output] -= records[output] }
    }

    /// Cuts off what the covered outputs before `end` appended for the current line, and takes
    /// back their encoders' counts of it.
    private mutating func takeBack(outputsBefore end: Int, from buffers: inout [[UInt8]]) {
        for output in 0..<end where covers[output] {
            encoders[output]?.withdrawLast()
            buffers[output].removeSubrange(marks[output]...)
        }
    }
}
