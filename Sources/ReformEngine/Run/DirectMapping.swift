public import ReformSDK

/// The batch fast path: copies a plain field mapping's values straight from NDJSON input bytes to
/// NDJSON output, building no values.
///
/// It applies when a run has one output, written as NDJSON without rows, whose chain is a single
/// mapping that copies required top-level fields for this manager. Each line is still checked
/// completely; a line is written directly only when it is a valid object holding every field, each
/// already written the way the NDJSON writer would print it (see
/// ``JSONParser/locateCanonical(_:keeping:into:)``). Any other line — a value to re-encode, a missing
/// field, invalid JSON — goes through the general path, which rejects or rewrites it as usual, so
/// the output bytes are the same either way.
final class DirectMapping {
    private let projection: JSONProjection
    /// `{"kConstant":` for the first key, `,"kConstant":` for the others, in declared order.
    private let prefixes: [[UInt8]]
    /// For each declared key, the position of its source field in ``projection``.
    private let sourceIndex: [Int]
    private let file: OutputFile
    private var ranges: [Range<Int>?] = []
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
            parser.locateCanonical(line, keeping: projection, into: &ranges)
        else { return false }
        for range in ranges where range == nil { return false }
        for (i, prefix) in prefixes.enumerated() {
            guard let range = ranges[sourceIndex[i]] else { return false }
            file.buffer.append(contentsOf: prefix)
            file.buffer.append(contentsOf: UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
        }
        file.buffer.append(UInt8(ascii: "}"))
        file.buffer.append(UInt8(ascii: "\n"))
        written += 1
        do { try file.flushIfFull() } catch { failure = error }
        return true
    }
}
