@_spi(Engine) import ReformSDK

/// The batch fast path: copies a plain field mapping's values straight from NDJSON input bytes to
/// NDJSON output, building no values (or lets a ``FieldReformer`` plugin do the same, see
/// ``FieldReformerEncoder``), or binds them straight into a table output (``TableDirect``).
///
/// For a mapping it applies when a run has one output, written as NDJSON without rows, whose chain is a single
/// mapping that copies required top-level fields for this manager. Each line is still checked
/// completely (see ``JSONParser/locate(_:keeping:into:canonical:)``); a valid object holding every
/// field is written directly: values already in the form the NDJSON writer prints are copied, the
/// others (escapes, floats, nested values) are parsed alone and written as the writer writes them.
/// Any other line — a missing field, invalid JSON, not an object — goes through the general path,
/// which rejects it as usual, so the output bytes are the same either way.
///
/// A run with several file outputs whose chains the compiled path each covers writes all of them
/// from the line (``FanOut``); a line any of them leaves goes down the general path for all.
final class DirectMapping {
    /// What turns a qualifying line into output lines: a mapping's or compiled chain's encoder
    /// or, for a plugin chain, a field reformer's (exactly one is set).
    private var mapping: LineEncoder?
    /// Whether ``mapping`` is set: asking `mapping != nil` per line copied the whole encoder
    /// (every array of a compiled chain retained and released), as `!= nil` takes its operand by value.
    private let hasMapping: Bool
    private let file: OutputFile?
    private let table: TableDirect?
    /// Lines the fast path took so far (they never land as values).
    private(set) var handled = 0
    /// Records it wrote for them (fewer when a filter drops some, more when a chain explodes them).
    private(set) var written = 0
    /// What each reformer of the chain did with the lines taken so far, when the encoder knows
    /// (`nil`: every record went through every reformer, one in, one out).
    var stageCounts: [ChainRunner.StageCounts]? { mapping?.stageCounts }
    /// The first write failure; once set, every line takes the general path (which reports it).
    private(set) var failure: OutputError?
    /// For a run with several outputs: their encoders, the files of the outputs it writes (by
    /// output, `nil` for those left to the general path) and the buffers the files' own are
    /// swapped into while a line is encoded.
    private var fanOut: FanOut?
    private let fanOutFiles: [OutputFile?]
    private var fanOutBuffers: [[UInt8]]
    /// The one output a fan-out leaves when it is a table a plain mapping fills (``TableDirect``):
    /// it binds each line the fan-out took straight from the bytes, after the files; a line it
    /// refuses is taken back from the files and goes down the general path for every output.
    private let fanOutTable: (output: Int, table: TableDirect)?
    /// Rows that table got.
    private var fanOutTableRows = 0
    /// Whether the last line offered was written to the outputs ``FanOut`` covers and left to
    /// the general path for the others.
    private var lastLineLanded = false
    /// The outputs the last line offered has been written to when it still lands for the others.
    var outputsWrittenForLastLine: [Bool]? { lastLineLanded ? fanOut?.covers : nil }
    /// How many reformers of the one output left to the general path its compiled start covers,
    /// when it does (``FanOut/rest``) and that output is not a table bound from the line.
    var restStages: Int? { fanOutTable == nil ? fanOut?.rest?.prefix.stages : nil }

    /// The record the compiled start of the one output left to the general path makes of the
    /// last line offered, when the others took it (see ``ChainPrefix/reform(_:)``: `.some(nil)`
    /// when a filter drops it, `nil` when it lands whole).
    func reformRest(_ line: UnsafeRawBufferPointer) -> Value?? {
        guard lastLineLanded, let prefix = fanOut?.rest?.prefix, let reformed = prefix.reform(line) else { return nil }
        if reformed == nil { handled += 1 }  // dropped: it never lands
        return reformed
    }
    /// Last of the stored properties: its layout is known only at run time (it holds the SDK's
    /// resilient `FieldOutput`), and a property after it had its offset looked up on every line.
    private var fields: FieldReformerEncoder?

    /// The fast path writing with `mapping` or `fields` to `file`, binding into `table`, or
    /// fanned out to several files (``FanOut``); made by the run for its outputs
    /// (`Run/DirectMapping+Make.swift`).
    init(
        mapping: LineEncoder?, fields: FieldReformerEncoder?, file: OutputFile?, table: TableDirect? = nil, fanOut: FanOut? = nil,
        fanOutFiles: [OutputFile?] = [], fanOutTable: (output: Int, table: TableDirect)? = nil
    ) {
        self.fanOutTable = fanOutTable
        self.mapping = mapping
        hasMapping = mapping != nil
        self.fields = fields
        self.file = file
        self.table = table
        self.fanOut = fanOut
        self.fanOutFiles = fanOutFiles
        fanOutBuffers = fanOutFiles.map { _ in [] }
    }

    /// What the fast path did for each output, in output order.
    var counts: [DirectCounts] {
        if let fanOut {
            return (0..<fanOut.outputs).map { output in
                // A plain mapping's table rows went through its one reformer, one in, one out.
                if let fanOutTable, fanOutTable.output == output { return DirectCounts(written: fanOutTableRows, stages: nil) }
                return DirectCounts(written: fanOut.written[output], stages: fanOut.stageCounts(of: output))
            }
        }
        return [DirectCounts(written: written, stages: stageCounts)]
    }

    /// Writes the record in `line` (at `place` in its input) directly when it qualifies; `false`
    /// sends it down the general path.
    func write(_ line: UnsafeRawBufferPointer, at place: LinePlace) -> Bool {
        if !fanOutFiles.isEmpty { return writeFannedOut(line, at: place) }
        guard failure == nil else { return false }
        if let table {
            do {
                guard try table.write(line, at: place) else { return false }
            } catch {
                failure = error
                return false
            }
            handled += 1
            written += 1
            return true
        }
        guard let file else { return false }
        var out: [UInt8] = []
        swap(&out, &file.buffer)
        let records: Int?
        if hasMapping {
            records = mapping?.encode(line, into: &out)
        } else {
            records = fields?.encode(line, into: &out) == true ? 1 : nil
        }
        swap(&out, &file.buffer)
        guard let records else { return false }
        handled += 1
        written += records
        do { try file.flushIfFull() } catch { failure = error }
        return true
    }

    /// Writes the line to the outputs ``FanOut`` covers; `true` when that is all of them, `false`
    /// when it lands for the others (``outputsWrittenForLastLine``) or for every output.
    private func writeFannedOut(_ line: UnsafeRawBufferPointer, at place: LinePlace) -> Bool {
        lastLineLanded = false
        guard failure == nil else { return false }
        for (index, file) in fanOutFiles.enumerated() { if let file { swap(&fanOutBuffers[index], &file.buffer) } }
        var taken = fanOut?.encode(line, into: &fanOutBuffers) == true
        if taken, let fanOutTable {
            do {
                taken = try fanOutTable.table.write(line, at: place)
            } catch {
                failure = error
                taken = false
            }
            if taken {
                fanOutTableRows += 1
            } else {
                fanOut?.withdrawLast(from: &fanOutBuffers)
            }
        }
        for (index, file) in fanOutFiles.enumerated() { if let file { swap(&fanOutBuffers[index], &file.buffer) } }
        guard taken else { return false }
        do {
            for case let file? in fanOutFiles { try file.flushIfFull() }
        } catch {
            failure = error
        }
        if fanOut?.isPartial == true, fanOutTable == nil {
            lastLineLanded = true
            return false
        }
        handled += 1
        return true
    }
}

/// What turns a qualifying NDJSON line into output lines on the fast path: a plain field mapping's
/// ``DirectEncoder``, for other chains the compiled path covers a ``CompiledChain``, for rows
/// rendered as CSV a ``CompiledRows`` (after a chain, a ``CompiledChainRows``).
struct LineEncoder {
    // Exactly one is set: the one `kind` names.
    private var mapping: DirectEncoder?
    private var chain: CompiledChain?
    private var rows: CompiledRows?
    private var chainRows: CompiledChainRows?
    /// Which encoder it is.
    let kind: Kind
    /// The encoders a line can go through: a plain mapping's copy, a compiled chain, rows
    /// rendered from the line, rows after a compiled chain.
    enum Kind { case mapping, chain, rows, chainRows }

    private init(mapping: DirectEncoder) {
        self.mapping = mapping
        kind = .mapping
    }

    private init(chain: CompiledChain) {
        self.chain = chain
        kind = .chain
    }

    private init(rows: CompiledRows) {
        self.rows = rows
        kind = .rows
    }

    private init(chainRows: CompiledChainRows) {
        self.chainRows = chainRows
        kind = .chainRows
    }
    /// Lines a plain mapping encoded (each one record through its one reformer).
    private var mapped = 0

    /// What each reformer of the chain did with the lines encoded so far, in chain order (rows
    /// have no reformers before them).
    var stageCounts: [ChainRunner.StageCounts] {
        if case .some = rows { return [] }
        if let chainRows { return chainRows.stageCounts }
        return chain?.stageCounts ?? [ChainRunner.StageCounts(recordsIn: mapped, recordsOut: mapped)]
    }

    /// The encoder for `manager` when a run has exactly these outputs and the only one is
    /// written as `format` (see ``DirectEncoder/make(for:outputs:format:limits:)`` and
    /// ``CompiledChain/make(for:outputs:format:limits:)``).
    static func make(for manager: ManagerRef, outputs: [OutputPlan], format: OutputFormat, limits: JSONLimits) -> LineEncoder? {
        if let mapping = DirectEncoder.make(for: manager, outputs: outputs, format: format, limits: limits) {
            return LineEncoder(mapping: mapping)
        }
        if let rows = CompiledRows.make(for: manager, outputs: outputs, format: format, limits: limits) {
            return LineEncoder(rows: rows)
        }
        if let chainRows = CompiledChainRows.make(for: manager, outputs: outputs, format: format, limits: limits) {
            return LineEncoder(chainRows: chainRows)
        }
        return CompiledChain.make(for: manager, outputs: outputs, format: format, limits: limits).map {
            LineEncoder(chain: $0)
        }
    }

    /// The key paths a compiled chain locates in each line (`nil` for the other kinds, which
    /// locate their own way).
    var chainPaths: [[String]]? { kind == .chain ? chain?.paths : nil }

    /// As ``encode(_:into:)``, for a compiled chain whose paths `shared` has located in the line
    /// already (``chainPaths``' `i` is its `sharedPaths[i]`).
    mutating func encode(
        _ line: UnsafeRawBufferPointer, into out: inout [UInt8], locatedBy shared: borrowing FieldLocator, sharedPaths: [Int]
    ) -> Int? {
        chain?.encode(line, into: &out, locatedBy: shared, sharedPaths: sharedPaths) ?? nil
    }

    /// Takes back the counts of the line the last ``encode(_:into:)`` took, whose output the
    /// caller drops (``FanOut``: another output sent that line down the general path).
    mutating func withdrawLast() {
        switch kind {
        case .mapping: mapped -= 1
        case .chain: chain?.withdrawLast()
        case .chainRows: chainRows?.withdrawLast()
        case .rows: break
        }
    }

    /// Appends the output lines for the record in `line` and returns how many; `nil` (and nothing
    /// appended) sends it down the general path.
    mutating func encode(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Int? {
        // Each encodes in place through optional chaining, chosen by a plain tag: taking it out of
        // its optional and back moved the whole struct twice a line (~700 instructions for a
        // chain), and comparing an optional with nil copies it.
        switch kind {
        case .mapping:
            guard mapping?.encode(line, into: &out) == true else { return nil }
            mapped += 1
            return 1
        case .chain: return chain?.encode(line, into: &out) ?? nil
        case .rows: return rows?.encode(line, into: &out) == true ? 1 : nil
        case .chainRows: return chainRows?.encode(line, into: &out) ?? nil
        }
    }
}

/// The byte-level work of the fast path: one NDJSON input line to one NDJSON output line, for a
/// plain field mapping. A value type with its own scratch space, so each worker of a parallel run
/// has one.
struct DirectEncoder {
    private let projection: JSONProjection
    /// `{"kConstant":` for the first key, `,"kConstant":` for the others, in declared order.
    private let prefixes: [[UInt8]]
    /// For each declared key, the position of its source field in ``projection``.
    private let sourceIndex: [Int]
    /// Per-line working state, kept between lines to reuse its storage. ``encode(_:into:)`` moves
    /// it into a local for the line, so the hot loop makes no dynamically checked accesses.
    private struct Scratch {
        var ranges: [Range<Int>?] = []
        var canonical: [Bool] = []
        var reencoded: [Value?] = []
        var parser: JSONParser
    }

    private var scratch: Scratch?

    private init(sources: [String], constants: [String], limits: JSONLimits) {
        scratch = Scratch(parser: JSONParser(limits: limits))
        let projection = JSONProjection(keys: sources)
        self.projection = projection
        sourceIndex = sources.map { source in projection.keys.firstIndex(of: source) ?? 0 }
        prefixes = NDJSONWriter.memberPrefixes(constants)
    }

    /// The encoder for `manager` when a run has exactly these outputs and the only one is written
    /// as `format`: NDJSON without rows, a single mapping copying required top-level fields. Lines
    /// nested deeper than `limits` allow are left to the general path.
    static func make(for manager: ManagerRef, outputs: [OutputPlan], format: OutputFormat, limits: JSONLimits) -> DirectEncoder? {
        guard outputs.count == 1, let output = outputs.first, output.rows == nil, format == .ndjson,
            output.chain.count == 1, case .mapping(let mapping) = output.chain[0].kind,
            let rules = mapping.perManager[manager.index] ?? mapping.shared, !rules.isEmpty
        else { return nil }
        var sources: [String] = []
        for rule in rules {
            guard case .path(let path) = rule.source, path.components.count == 1, let key = path.firstKey,
                !rule.optional, rule.defaultValue == nil, rule.conversion == nil, rule.array == nil
            else { return nil }
            sources.append(key)
        }
        return DirectEncoder(sources: sources, constants: rules.map(\.constant), limits: limits)
    }

    /// Appends the output line for the record in `line` when it qualifies; `false` (and nothing
    /// appended) sends it down the general path.
    mutating func encode(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        guard var work = scratch.take() else { return false }
        let mark = out.count
        let handled = Self.write(line, &work, &out, prefixes: prefixes, sourceIndex: sourceIndex, projection: projection)
        if !handled { out.removeSubrange(mark...) }
        scratch = work
        return handled
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
                let value = work.parser.parsedValue(UnsafeRawBufferPointer(rebasing: line[range]))
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

extension DirectMapping: LineFastPath {
    /// Each line is offered to ``write(_:at:)``; one it leaves that the fast path wrote to some of
    /// the outputs goes through the compiled start of the one left (``reformRest(_:)``).
    func attach(to reader: inout NDJSONReader, input: String) {
        reader.lineHandler = { self.write($0, at: LinePlace(input: input, line: $1, index: $2)) }
        if restStages != nil { reader.lineReformer = { self.reformRest($0) } }
    }

    var reformedStages: Int? { restStages }
}
