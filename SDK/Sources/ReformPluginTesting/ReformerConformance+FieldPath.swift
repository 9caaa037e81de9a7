@_spi(Engine) import ReformSDK

extension ReformerConformance {
    /// A ``FieldReformer`` gives the same result on the engine's fast path (fields as the JSON text
    /// of an input line, output written as text) as on the value path: the same record, or a
    /// rejection with the same code. Each input is written as a JSON line and read back as the
    /// engine reads NDJSON input.
    static func checkFieldPath<R: Reformer>(_ reformer: R, inputs: [Input], outcomes: [Outcome], _ report: inout ConformanceReport) {
        guard var copy = reformer as? any FieldReformer, let constants = reformer.keys?.constants else { return }
        let layout = FieldOutput.Layout(constants: constants)
        var parser = JSONParser()
        for (input, expected) in zip(inputs, outcomes) {
            guard case .object = input.value, let fields = reformer.fieldsRead(from: input.manager) else { continue }
            var line: [UInt8] = []
            JSON.write(input.value, into: &line)
            let outcome = fieldPathOutcome(
                &copy, line: line, manager: input.manager, projection: JSONProjection(keys: fields), layout: layout,
                parser: &parser)
            report.recordsChecked += 1
            if outcome != expected {
                report.fail(
                    "\(input.label) gives \(describe(outcome)) on the fast path (fields as text) but \(describe(expected)) "
                        + "as values; a FieldReformer must do the same on both")
            }
        }
    }

    private static func fieldPathOutcome(
        _ reformer: inout any FieldReformer, line: [UInt8], manager: ManagerRef, projection: JSONProjection, layout: FieldOutput.Layout,
        parser: inout JSONParser
    ) -> Outcome {
        var ranges: [Range<Int>?] = []
        var canonical: [Bool] = []
        return line.withUnsafeBytes { bytes -> Outcome in
            guard let base = bytes.baseAddress, parser.locate(bytes, keeping: projection, into: &ranges, canonical: &canonical) else {
                return .rejected("unreadable line")
            }
            var output = FieldOutput(writing: layout, into: [])
            do throws(RecordError) {
                try ranges.withUnsafeBufferPointer { ranges throws(RecordError) in
                    try canonical.withUnsafeBufferPointer { canonical throws(RecordError) in
                        guard let r = ranges.baseAddress, let c = canonical.baseAddress else { return }
                        try reformer.reform(
                            RecordFields(text: base, ranges: r, canonical: c, count: ranges.count), from: manager, into: &output)
                    }
                }
                guard try output.check(reformer: "under test") else { return .values([]) }
            } catch {
                return .rejected(error.code)
            }
            var text = output.takeBuffer()
            text.append(UInt8(ascii: "}"))
            let value = text.withUnsafeBytes { try? parser.parse($0) }
            return value.map { .values([$0]) } ?? .rejected("unparseable output \(String(decoding: text, as: UTF8.self))")
        }
    }

    private static func describe(_ outcome: Outcome) -> String {
        switch outcome {
        case .values(let values): values.isEmpty ? "no record" : values.map { describe($0) }.joined(separator: ", ")
        case .rejected(let code): "a rejection (\(code))"
        }
    }
}
