public import ReformSDK

/// The batch fast path: copies a plain field mapping's values straight from NDJSON input bytes to
/// NDJSON output, building no values.
///
/// It applies when a run has one output, written as NDJSON without rows, whose chain is a single
/// mapping that copies required top-level fields for this manager. Each line is still checked
/// completely (see ``JSONParser/locate(_:keeping:into:canonical:)``); a valid object holding every
/// field is written directly: values already in the form the NDJSON writer prints are copied, the
/// others (escapes, floats, nested values) are parsed alone and written as the writer writes them.
/// Any other line — a missing field, invalid JSON, not an object — goes through the general path,
/// which rejects it as usual, so the output bytes are the same either way.
final class DirectMapping {
    private let projection: JSONProjection
    /// `{"kConstant":` for the first key, `,"kConstant":` for the others, in declared order.
    private let prefixes: [[UInt8]]
    /// For each declared key, the position of its source field in ``projection``.
    private let sourceIndex: [Int]
    private let file: OutputFile
    private var ranges: [Range<Int>?] = []
    private var canonical: [Bool] = []
    private var reencoded: [Value?] = []
    private var parser = JSONParser()
    /// Records written directly so far.
    private(set) var written = 0
    /// The first write failure; once set, every line takes the general path (which reports it).
    private(set) var failure: OutputError?

    private init(sources: [String], constants: [String], file: OutputFile) {
        let projection = JSONProjection(keys: sources)
        self.projection = projection
        sourceIndex = sources.map { source in projection.keys.firstIndex(of: source) ?? 0 }
        prefixes = constants.enumerated().map { offset, constant in
            var prefix: [UInt8] = [offset == 0 ? UInt8(ascii: "{") : UInt8(ascii: ",")]
            JSON.write(.string(constant), into: &prefix)
            prefix.append(UInt8(ascii: ":"))
            return prefix
        }
        self.file = file
    }

    /// The fast path for `manager` in a run with these outputs, when it applies.
    static func make(for manager: ManagerRef, outputs: [OutputRuntime]) -> DirectMapping? {
        guard outputs.count == 1, let output = outputs.first, output.plan.rows == nil, output.format == .ndjson,
            output.plan.chain.count == 1, case .mapping(let mapping) = output.plan.chain[0].kind,
            let rules = mapping.perManager[manager.index] ?? mapping.shared, !rules.isEmpty
        else { return nil }
        var sources: [String] = []
        for rule in rules {
            guard case .path(let path) = rule.source, path.components.count == 1, let key = path.firstKey,
                !rule.optional, rule.defaultValue == nil, rule.conversion == nil
            else { return nil }
            sources.append(key)
        }
        return DirectMapping(sources: sources, constants: rules.map(\.constant), file: output.file)
    }

    /// Writes the record in `line` directly when it qualifies; `false` sends it down the general path.
    func write(_ line: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil, let base = line.baseAddress,
            parser.locate(line, keeping: projection, into: &ranges, canonical: &canonical)
        else { return false }
        // Values not already in printed form are parsed alone and written as the writer would.
        if reencoded.count != ranges.count { reencoded = Array(repeating: nil, count: ranges.count) }
        for i in ranges.indices {
            guard let range = ranges[i] else { return false }
            if canonical[i] {
                reencoded[i] = nil
            } else {
                let value = try? parser.parse(UnsafeRawBufferPointer(rebasing: line[range]))
                guard let value else { return false }
                reencoded[i] = value
            }
        }
        for (i, prefix) in prefixes.enumerated() {
            let source = sourceIndex[i]
            guard let range = ranges[source] else { return false }
            file.buffer.append(contentsOf: prefix)
            if let value = reencoded[source] {
                JSON.write(value, into: &file.buffer)
            } else {
                file.buffer.append(contentsOf: UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
            }
        }
        file.buffer.append(UInt8(ascii: "}"))
        file.buffer.append(UInt8(ascii: "\n"))
        written += 1
        do { try file.flushIfFull() } catch { failure = error }
        return true
    }
}
