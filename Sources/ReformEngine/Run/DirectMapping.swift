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
    /// Per-line working state, kept between lines to reuse its storage. ``write(_:)`` moves it
    /// (and the output buffer) into locals for the line, so the hot loop makes no class accesses.
    private struct Scratch {
        var ranges: [Range<Int>?] = []
        var canonical: [Bool] = []
        var reencoded: [Value?] = []
        var parser = JSONParser()
    }

    private var scratch: Scratch? = Scratch()
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
        guard failure == nil, var work = scratch.take() else { return false }
        var out: [UInt8] = []
        swap(&out, &file.buffer)
        let handled = Self.write(line, &work, &out, prefixes: prefixes, sourceIndex: sourceIndex, projection: projection)
        swap(&out, &file.buffer)
        scratch = work
        guard handled else { return false }
        written += 1
        do { try file.flushIfFull() } catch { failure = error }
        return true
    }

    private static func write(
        _ line: UnsafeRawBufferPointer, _ work: inout Scratch, _ out: inout [UInt8], prefixes: [[UInt8]], sourceIndex: [Int],
        projection: JSONProjection
    ) -> Bool {
        guard let base = line.baseAddress,
            work.parser.locate(line, keeping: projection, into: &work.ranges, canonical: &work.canonical)
        else { return false }
        // Values not already in printed form are parsed alone and written as the writer would.
        if work.reencoded.count != work.ranges.count { work.reencoded = Array(repeating: nil, count: work.ranges.count) }
        for i in work.ranges.indices {
            guard let range = work.ranges[i] else { return false }
            if work.canonical[i] {
                work.reencoded[i] = nil
            } else {
                let value = try? work.parser.parse(UnsafeRawBufferPointer(rebasing: line[range]))
                guard let value else { return false }
                work.reencoded[i] = value
            }
        }
        for (i, prefix) in prefixes.enumerated() {
            let source = sourceIndex[i]
            guard let range = work.ranges[source] else { return false }
            out.append(contentsOf: prefix)
            if let value = work.reencoded[source] {
                JSON.write(value, into: &out)
            } else {
                out.append(contentsOf: UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
            }
        }
        out.append(UInt8(ascii: "}"))
        out.append(UInt8(ascii: "\n"))
        return true
    }
}
