@_spi(Engine) import ReformSDK

/// The batch fast path for a plugin that is a ``FieldReformer``: its fields are handed over as the
/// JSON text of the NDJSON input line, and what it appends is written straight to the NDJSON
/// output, so a field passed on unchanged is copied, not built and printed again.
///
/// It applies where ``DirectEncoder`` would for a mapping: one output, NDJSON without rows, a chain
/// of that one reformer, whose declared keys are the chain's. The line is checked completely first
/// (``JSONParser/locate(_:keeping:into:canonical:)``). A line it cannot finish here — invalid JSON,
/// not an object, a rejection, a dropped record, keys left out — goes down the general path, which
/// runs the reformer again on the whole record and rejects or drops it as usual, so output, counts
/// and dead letters are the same either way.
struct FieldReformerEncoder {
    private var reformer: any FieldReformer
    private let manager: ManagerRef
    private let name: String
    private let projection: JSONProjection
    /// The declared keys and the text before each one's value (`{"kID":`, `,"kName":`, …).
    private let layout: FieldOutput.Layout
    private var parser: JSONParser
    private var ranges: [Range<Int>?] = []
    private var canonical: [Bool] = []

    /// The encoder for `manager` when a run has exactly these outputs and the only one qualifies.
    static func make(for manager: ManagerRef, outputs: [OutputPlan], format: OutputFormat, limits: JSONLimits) -> FieldReformerEncoder? {
        guard outputs.count == 1, let output = outputs.first, output.rows == nil, format == .ndjson,
            output.chain.count == 1, case .plugin(let plugin) = output.chain[0].kind,
            let constants = output.chain[0].keys?.constants, !constants.isEmpty,
            let made = try? plugin.makeReformer(), let reformer = made as? any FieldReformer,
            reformer.keys?.constants == constants,
            let fields = reformer.fieldsRead(from: manager)
        else { return nil }
        return FieldReformerEncoder(
            reformer: reformer, manager: manager, name: output.chain[0].name, projection: JSONProjection(keys: fields),
            constants: constants, parser: JSONParser(limits: limits))
    }

    private init(
        reformer: any FieldReformer, manager: ManagerRef, name: String, projection: JSONProjection, constants: [String],
        parser: JSONParser
    ) {
        self.reformer = reformer
        self.manager = manager
        self.name = name
        self.projection = projection
        layout = FieldOutput.Layout(constants: constants)
        self.parser = parser
    }

    /// Appends the output line for the record in `line` when the reformer completes it here;
    /// `false` (and nothing appended) sends the line down the general path.
    mutating func encode(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        guard let base = line.baseAddress, parser.locate(line, keeping: projection, into: &ranges, canonical: &canonical) else {
            return false
        }
        let mark = out.count
        var output = FieldOutput(writing: layout, into: take(&out))
        let complete = ranges.withUnsafeBufferPointer { ranges in
            canonical.withUnsafeBufferPointer { canonical in
                guard let rangeBase = ranges.baseAddress, let canonicalBase = canonical.baseAddress else { return false }
                let fields = RecordFields(text: base, ranges: rangeBase, canonical: canonicalBase, count: ranges.count)
                do {
                    try reformer.reform(fields, from: manager, into: &output)
                    return try output.check(reformer: name)
                } catch {
                    return false
                }
            }
        }
        out = output.takeBuffer()
        guard complete else {
            out.removeSubrange(mark...)
            return false
        }
        out.append(UInt8(ascii: "}"))
        out.append(UInt8(ascii: "\n"))
        return true
    }

    private func take(_ array: inout [UInt8]) -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &array)
        return taken
    }
}
