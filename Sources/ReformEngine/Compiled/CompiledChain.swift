@_spi(Engine) import ReformSDK

/// The batch fast path for whole chains: a mapping (or an `explode` and a `pick`) followed by
/// per-record steps (`filter`, `pick`, `drop`, `rename`, `defaults`, `convert`, `set`, and the
/// component steps that edit keys' values, ``KeyEditStep``: `truncate`), or only `filter`,
/// `drop` and `rename` of whole records (``passesLines``), compiled once for one
/// manager into a plan over *slots* — one per key the records carry — and run on the bytes of
/// each NDJSON line, building no record.
///
/// Keys are known when the chain is compiled, so `pick`, `drop`, `rename` and the declared-keys
/// check cost nothing per record: they only decide which slots are written, in which order, under
/// which names. Per record, each slot is the JSON text of its value, either a range of the input
/// line (values already as the writer prints them) or text written into a scratch buffer
/// (templates, conversions, re-encoded values). A filter reads the slots it names as values.
///
/// Anything unusual — an invalid line, a missing field, a failed conversion, a value that is not an
/// array where `explode` needs one — sends the line down the general path, which rejects or handles
/// it, so the output, counts and dead letters are the same either way (held to that by
/// `CompiledChainTests`).
struct CompiledChain {
    /// Whether the chain only filters whole records, drops and renames top-level members (every
    /// reformer `steps` of `filter`, `drop` and `rename`): a line that passes is written as it
    /// came, less the members dropped and with the renamed ones' keys written anew, when it is in
    /// the writer's form or only its whitespace, numbers' forms and strings' escapes differ
    /// (``JSON/writtenFormVerdict(_:)``, then rewritten); its slots are only the filters' paths.
    let passesLines: Bool
    /// The top-level members a passed line loses: each key's located path and its length in bytes.
    let droppedMembers: [(path: Int, keyLength: Int)]
    /// The top-level members a passed line writes under another name: each key's located path,
    /// its length in bytes, and the new name's bytes.
    let renamedMembers: [(path: Int, keyLength: Int, to: [UInt8])]
    /// Located paths of keys a passed line must not have (a rename's new names: a line that has
    /// one goes to the general path, where the rename replaces it).
    let absentPaths: [Int]

    /// Where a slot's value comes from.
    enum Source {
        /// The value at a located path (its index in the ``FieldLocator``).
        case field(Int)
        /// A string template: literal pieces (already escaped for a JSON string) and fields.
        case template([TemplatePiece])
        /// A fixed JSON text (a constant, a default added as a new key).
        case constant([UInt8])
        /// What a mapping rule's array operation (`count`, `join`, `labels[].name`…) makes of the
        /// array at a located path: only that array is parsed, and the operation is the general
        /// path's own.
        case array(Int, ArrayOperation)
    }

    /// One piece of a compiled template.
    enum TemplatePiece {
        /// Text already escaped as it goes inside a JSON string.
        case literal([UInt8])
        /// The text of the value at a located path; `optional`: nothing when missing or null.
        case field(Int, optional: Bool)
        /// The text of a slot's value (a `set` step's template); `optional`: nothing when null.
        case slot(Int, optional: Bool)
    }

    /// One value the records carry, filled per record.
    struct Slot {
        let source: Source
        /// A missing field is null instead of sending the line to the general path.
        var optional = false
        /// The value used when the field is missing or null (a mapping's `default`).
        var fallback: Value? = nil
        /// A conversion of the value (a mapping's `convert`).
        var conversion: Conversion? = nil
    }

    /// A per-record step that remains after compiling (the others are only a change of names).
    enum Step {
        /// Keep the record when the condition holds.
        /// `reformer`: the position in the chain of the reformer the filter belongs to.
        case filter(SlotCondition, reformer: Int)
        /// Give a slot a value when it is null.
        case defaults(slot: Int, text: [UInt8])
        /// Convert a slot's value (`convert`); a value that does not convert sends the line to the
        /// general path, which rejects it.
        case convert(slot: Int, conversion: Conversion)
        /// Set slots to templates rendered from the record as it was before the step (`set`).
        case set([(slot: Int, pieces: [TemplatePiece])])
        /// Replace a slot's value by a component step's edit of it (``KeyEditStep``, the
        /// `index`-th edited key); a value the edit rejects sends the line to the general path.
        /// Boxed: unboxed, the existential made every step a larger copy and cost the chains
        /// without an edit 1.4 % more instructions (callgrind, the `exploded` chain).
        indirect case edit(slot: Int, step: any KeyEditStep, index: Int)
    }

    /// How a filter path reads a record: the slot named by its first key (none: missing), then the
    /// rest of the path inside that value.
    struct Lookup {
        let path: ValuePath
        let slot: Int?
        let rest: ValuePath
    }

    /// Where a slot's text is this record.
    private struct Text {
        enum Base { case line, scratch, constant }
        var base: Base
        var start: Int
        var end: Int
    }

    /// Finds the chain's paths in each line (read by the passed-lines writer too).
    var locator: FieldLocator
    private let slots: [Slot]
    private let steps: [Step]
    /// The slot whose array each record is exploded over (one output record per element), if any,
    /// and the located path of that array.
    private let explode: (slot: Int?, path: Int)?
    /// The slots written, in output order, and the text before each (`{"key":`, `,"key":`), all
    /// in one buffer: slot `output[i]`'s ends at `prefixEnds[i]`.
    private let output: [Int]
    private let prefixes: [UInt8]
    private let prefixEnds: [Int]
    /// Constant texts, referred to by ``Text`` ranges with base `.constant`.
    private let constants: [UInt8]
    private let constantRanges: [Int: Range<Int>]

    var parser: JSONParser
    /// A passed line with its escapes rewritten (``writePassedInWrittenForm(_:into:)``).
    var rewritten: [UInt8] = []
    private var texts: [Text]
    private var scratch: [UInt8] = []
    /// Whether the last line's slots took a double the writer prints as an integer (`100.0` →
    /// `100`, `1e15`, `-0.0`, an int converted to double): its written record reads back with an
    /// int there, so a ``ChainPrefix`` hands that line to the general path instead.
    private(set) var wroteIntegralDouble = false
    private var elementRanges: [Range<Int>] = []
    private var elementCanonical: [Bool] = []
    private var keep: [Text] = []
    /// A `set` step's rendered texts, before they are assigned.
    private var rendered: [Text] = []
    /// Where a record's line is put together before it is appended to the output in one piece.
    private var record: [UInt8] = []
    /// How many reformers of the chain the plan covers.
    let reformers: Int
    /// Lines taken, and per reformer the records that came out of it, so far (for `--stats`).
    private var taken = 0
    private var passed: [Int]
    /// This line's records out of each reformer, added to ``passed`` once the line is done.
    private var pending: [Int]

    init(
        paths: [[String]], slots: [Slot], steps: [Step], explode: (slot: Int?, path: Int)?, output: [(name: String, slot: Int)],
        reformers: Int, passesLines: Bool = false, droppedMembers: [(path: Int, keyLength: Int)] = [],
        renamedMembers: [(path: Int, keyLength: Int, to: [UInt8])] = [], absentPaths: [Int] = [], limits: JSONLimits
    ) {
        self.reformers = reformers
        self.passesLines = passesLines
        self.droppedMembers = droppedMembers
        self.renamedMembers = renamedMembers
        self.absentPaths = absentPaths
        passed = Array(repeating: 0, count: reformers)
        pending = Array(repeating: 0, count: reformers)
        locator = FieldLocator(paths: paths)
        self.slots = slots
        self.steps = steps
        self.explode = explode
        self.output = output.map(\.slot)
        var prefixes: [UInt8] = []
        var prefixEnds: [Int] = []
        for prefix in NDJSONWriter.memberPrefixes(output.map(\.name)) {
            prefixes += prefix
            prefixEnds.append(prefixes.count)
        }
        self.prefixes = prefixes
        self.prefixEnds = prefixEnds
        var constants: [UInt8] = Array("null".utf8)
        var ranges: [Int: Range<Int>] = [:]
        for (index, slot) in slots.enumerated() {
            if case .constant(let text) = slot.source {
                ranges[index] = constants.count..<(constants.count + text.count)
                constants += text
            }
        }
        for (position, step) in steps.enumerated() {
            if case .defaults(_, let text) = step {
                ranges[-1 - position] = constants.count..<(constants.count + text.count)
                constants += text
            }
        }
        self.constants = constants
        constantRanges = ranges
        parser = JSONParser(limits: limits)
        texts = slots.map { _ in Text(base: .constant, start: 0, end: 4) }
    }

    /// Appends the output lines for the record in `line` (none when a filter drops it, one per
    /// element when it is exploded) and returns how many; `nil` (and nothing appended) sends it
    /// down the general path.
    mutating func encode(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Int? {
        guard locator.locate(line, parser: &parser) else { return nil }
        return encodeLocated(line, into: &out)
    }

    /// The key paths the chain locates in a line, in the order its slots name them.
    var paths: [[String]] { locator.paths }

    /// As ``encode(_:into:)``, for a line `shared` has located already: path `i` of ``paths`` is
    /// path `sharedPaths[i]` there.
    mutating func encode(
        _ line: UnsafeRawBufferPointer, into out: inout [UInt8], locatedBy shared: borrowing FieldLocator, sharedPaths: [Int]
    ) -> Int? {
        locator.adopt(shared, paths: sharedPaths)
        return encodeLocated(line, into: &out)
    }

    private mutating func encodeLocated(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Int? {
        let mark = out.count
        for i in pending.indices { pending[i] = 0 }
        guard let written = encodeRecord(line, into: &out) else {
            out.removeSubrange(mark...)
            return nil
        }
        taken += 1
        for i in passed.indices { passed[i] += pending[i] }
        return written
    }

    /// Takes back the counts of the line the last ``encode(_:into:)`` took (the caller drops its
    /// output: another output of the run sent that line down the general path).
    mutating func withdrawLast() {
        taken -= 1
        for i in passed.indices { passed[i] -= pending[i] }
        for i in pending.indices { pending[i] = 0 }
    }

    /// What each covered reformer did with the lines taken so far, in chain order.
    var stageCounts: [ChainRunner.StageCounts] {
        (0..<reformers).map { k in
            ChainRunner.StageCounts(recordsIn: k == 0 ? taken : passed[k - 1], recordsOut: passed[k])
        }
    }

    /// The line's records, its paths located.
    private mutating func encodeRecord(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Int? {
        scratch.removeAll(keepingCapacity: true)
        wroteIntegralDouble = false
        for index in slots.indices {
            // The exploded array's slot takes each element in turn below: parsing and writing the
            // whole array into it first (it is not a scalar the line's text can stand for) was
            // 6-8% of an exploding chain, for nothing.
            if index == explode?.slot, let path = explode?.path, locator.ranges[path] != nil { continue }
            guard fill(index, line) else { return nil }
        }
        guard let explode else {
            switch finish(line, into: &out) {
            case .written: return 1
            case .dropped: return 0
            case .generalPath: return nil
            }
        }
        guard let range = locator.ranges[explode.path], line[range.lowerBound] == UInt8(ascii: "[") else { return nil }
        var elements: [Range<Int>] = []
        var canonical: [Bool] = []
        swap(&elements, &elementRanges)
        swap(&canonical, &elementCanonical)
        defer {
            swap(&elements, &elementRanges)
            swap(&canonical, &elementCanonical)
        }
        // The array is checked already: the locator checked the whole line.
        guard parser.locateElements(ofChecked: UnsafeRawBufferPointer(rebasing: line[range]), into: &elements, canonical: &canonical)
        else {
            return nil
        }
        // The slots as filled, restored before each element's steps: copied value by value, as
        // `texts = keep` would share one array and copy it at the element's first write.
        Self.copy(texts, into: &keep)
        var written = 0
        for (position, (element, isCanonical)) in zip(elements, canonical).enumerated() {
            if position > 0 { Self.copy(keep, into: &texts) }
            if let slot = explode.slot {
                let start = range.lowerBound + element.lowerBound
                let end = range.lowerBound + element.upperBound
                if isCanonical {
                    texts[slot] = Text(base: .line, start: start, end: end)
                } else {
                    guard let value = parse(.line, start, end, line) else { return nil }
                    texts[slot] = writeScratch(value)
                }
            }
            switch finish(line, into: &out) {
            case .written: written += 1
            case .dropped: break
            case .generalPath: return nil
            }
        }
        return written
    }

    /// Copies the slot texts `source` into `target`, element by element through their buffers (an
    /// assignment would share one array, copied at the next write; emptying and appending cost
    /// ~200 instructions a line).
    private static func copy(_ source: [Text], into target: inout [Text]) {
        guard target.count == source.count else {
            target = source.map { $0 }
            return
        }
        target.withUnsafeMutableBufferPointer { target in
            source.withUnsafeBufferPointer { source in
                for i in source.indices { target[i] = source[i] }
            }
        }
    }

    /// Runs the steps over the filled slots and writes the record unless a filter drops it.
    private enum Outcome { case written, dropped, generalPath }

    private mutating func finish(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Outcome {
        for position in steps.indices {
            switch steps[position] {
            case .filter(let condition, let reformer):
                if !holds(condition, line) {
                    for i in 0..<reformer { pending[i] += 1 }
                    return .dropped
                }
            case .defaults(let slot, _):
                if isNull(texts[slot], line), let range = constantRanges[-1 - position] {
                    texts[slot] = Text(base: .constant, start: range.lowerBound, end: range.upperBound)
                }
            case .convert(let slot, let conversion):
                // Every slot's text is already as the writer prints it, so a conversion that
                // keeps the value keeps the text.
                let text = texts[slot]
                let kept = withText(text, line) { Self.keepsText(conversion, $0) }
                if kept {
                    if conversion == .double, withText(text, line, Self.readsAsInteger) { wroteIntegralDouble = true }
                    continue
                }
                if conversion == .int, withText(text, line, Self.holdsPlainInteger) {
                    texts[slot] = Text(base: text.base, start: text.start + 1, end: text.end - 1)
                    continue
                }
                guard let value = parse(text.base, text.start, text.end, line) else { return .generalPath }
                guard fillValue(slot, value, conversion: conversion) else { return .generalPath }
            case .set(let assignments):
                rendered.removeAll(keepingCapacity: true)
                for assignment in assignments {
                    guard let text = render(assignment.pieces, line) else { return .generalPath }
                    rendered.append(text)
                }
                for (assignment, text) in zip(assignments, rendered) { texts[assignment.slot] = text }
            case .edit(let slot, let step, let index):
                let text = texts[slot]
                if withText(text, line, { step.keepsText($0, at: index) }) { continue }
                guard let value = parse(text.base, text.start, text.end, line), fillEdited(slot, value, step, index) else {
                    return .generalPath
                }
            }
        }
        if passesLines {
            // The record is the line, less the members dropped: its bytes are written when they
            // are what the writer prints for it (or rewritten when only whitespace, numbers and
            // escapes differ), and it is parsed and printed on the general path otherwise.
            guard absentPaths.allSatisfy({ locator.ranges[$0] == nil }), writePassedInWrittenForm(line, into: &out)
            else { return .generalPath }
        } else {
            writeRecord(line, into: &out)
        }
        for i in pending.indices { pending[i] += 1 }
        return .written
    }

    /// Appends the record's line: each output slot's member prefix and text, put together in
    /// ``record`` and appended at once (an array append per piece cost ~100 instructions: a
    /// fifth of an exploded record's work).
    private mutating func writeRecord(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        // Taken out of the chain while it is written: the closures below read the chain.
        var record: [UInt8] = []
        swap(&record, &self.record)
        defer { swap(&record, &self.record) }
        texts.withUnsafeBufferPointer { texts in
            output.withUnsafeBufferPointer { output in
                prefixEnds.withUnsafeBufferPointer { prefixEnds in
                    scratch.withUnsafeBytes { scratch in
                        constants.withUnsafeBytes { constants in
                            prefixes.withUnsafeBytes { prefixes in
                                var length = prefixes.count + 2
                                for slot in output { length += texts[slot].end - texts[slot].start }
                                if record.count < length { record = Array(repeating: 0, count: max(length, 2 * record.count)) }
                                record.withUnsafeMutableBytes { record in
                                    guard let target = record.baseAddress, let prefixBase = prefixes.baseAddress else { return }
                                    // Every piece fits: `record` holds at least the sum of their lengths.
                                    var at = 0
                                    var prefixStart = 0
                                    for i in output.indices {
                                        Self.copyPiece(target + at, prefixBase + prefixStart, prefixEnds[i] - prefixStart)
                                        at += prefixEnds[i] - prefixStart
                                        prefixStart = prefixEnds[i]
                                        let text = texts[output[i]]
                                        let source =
                                            switch text.base {
                                            case .line: line.baseAddress
                                            case .scratch: scratch.baseAddress
                                            case .constant: constants.baseAddress
                                            }
                                        if let source {
                                            Self.copyPiece(target + at, source + text.start, text.end - text.start)
                                        }
                                        at += text.end - text.start
                                    }
                                    target.storeBytes(of: UInt8(ascii: "}"), toByteOffset: at, as: UInt8.self)
                                    target.storeBytes(of: UInt8(ascii: "\n"), toByteOffset: at + 1, as: UInt8.self)
                                    out.append(contentsOf: UnsafeRawBufferPointer(start: target, count: at + 2))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Copies one piece of a record (a member prefix, a value): most are a few bytes, for which a
    /// call to `memcpy` cost more than the copy, so up to 16 bytes move as two words that overlap
    /// where the piece is shorter, reading and writing nothing outside it.
    @inline(__always)
    private static func copyPiece(_ target: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, _ count: Int) {
        if count >= 8 {
            guard count <= 16 else {
                target.copyMemory(from: source, byteCount: count)
                return
            }
            let first = source.loadUnaligned(as: UInt64.self)
            let last = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            target.storeBytes(of: first, as: UInt64.self)
            target.storeBytes(of: last, toByteOffset: count - 8, as: UInt64.self)
        } else if count >= 4 {
            let first = source.loadUnaligned(as: UInt32.self)
            let last = source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            target.storeBytes(of: first, as: UInt32.self)
            target.storeBytes(of: last, toByteOffset: count - 4, as: UInt32.self)
        } else {
            for k in 0..<count { target.storeBytes(of: source.load(fromByteOffset: k, as: UInt8.self), toByteOffset: k, as: UInt8.self) }
        }
    }

    /// Whether `condition` holds for the record in the slots.
    private mutating func holds(_ condition: SlotCondition, _ line: UnsafeRawBufferPointer) -> Bool {
        switch condition {
        case .and(let a, let b):
            return holds(a, line) && holds(b, line)
        case .or(let a, let b):
            return holds(a, line) || holds(b, line)
        case .not(let a):
            return !holds(a, line)
        case .truthy(let slot):
            guard let slot else { return false }
            return withText(texts[slot], line, SlotCondition.truthy)
        case .compare(let slot, let op, let literal, let literalText):
            guard let slot else { return Condition.compare(.null, op, literal) }
            let text = texts[slot]
            if let decided = withText(text, line, { SlotCondition.decide($0, op, literal: literal, literalText: literalText) }) {
                return decided
            }
            return Condition.compare(parse(text.base, text.start, text.end, line) ?? .null, op, literal)
        case .compareNumber(let slot, let op, let number, let literal):
            let text = texts[slot]
            if let value = withText(text, line, SlotCondition.plainNumber) {
                return SlotCondition.compare(value, op, number)
            }
            return Condition.compare(parse(text.base, text.start, text.end, line) ?? .null, op, literal)
        case .values(let node, let lookups):
            return Condition.holds(node) { path in
                guard let lookup = lookups.first(where: { $0.path == path }), let slot = lookup.slot else { return .null }
                let text = texts[slot]
                guard let value = parse(text.base, text.start, text.end, line) else { return .null }
                return lookup.rest.isIdentity ? value : value[path: lookup.rest] ?? .null
            }
        }
    }

    // The readers below are `mutating` though they only read: called from the per-record
    // (mutating) code, a non-mutating method is handed a copy of the whole chain, retaining every
    // array in it (perf: a tenth of a compiled run went to those copies).

    private mutating func withText<R>(_ text: Text, _ line: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch text.base {
        case .line: body(UnsafeRawBufferPointer(rebasing: line[text.start..<text.end]))
        case .scratch: scratch.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[text.start..<text.end])) }
        case .constant: constants.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[text.start..<text.end])) }
        }
    }

    /// Fills slot `index` for this record; `false` sends the line to the general path.
    private mutating func fill(_ index: Int, _ line: UnsafeRawBufferPointer) -> Bool {
        // Read in place: copying the slot (its template's pieces, its default) retained and
        // released its arrays for every slot of every line.
        switch slots[index].source {
        case .field(let path):
            return fillField(index, path, line)
        case .constant:
            guard let range = constantRanges[index] else { return false }
            texts[index] = Text(base: .constant, start: range.lowerBound, end: range.upperBound)
            return true
        case .template(let pieces):
            guard let text = render(pieces, line) else { return false }
            texts[index] = text
            return true
        case .array(let path, let operation):
            return fillArray(index, slots[index], path, operation, line)
        }
    }

    /// Fills slot `index`, whose value is the field at located path `path`.
    private mutating func fillField(_ index: Int, _ path: Int, _ line: UnsafeRawBufferPointer) -> Bool {
        let conversion = slots[index].conversion
        guard let range = locator.ranges[path], !(slots[index].fallback != nil && Self.isNull(range, line)) else {
            if let fallback = slots[index].fallback {
                return fillValue(index, fallback, conversion: conversion)
            }
            guard slots[index].optional else { return false }
            texts[index] = Text(base: .constant, start: 0, end: 4)  // null
            return true
        }
        let canonical = locator.canonical[path]
        if canonical, Self.keepsText(conversion, UnsafeRawBufferPointer(rebasing: line[range])) {
            if conversion == .double, Self.readsAsInteger(UnsafeRawBufferPointer(rebasing: line[range])) { wroteIntegralDouble = true }
            texts[index] = Text(base: .line, start: range.lowerBound, end: range.upperBound)
            return true
        }
        if canonical, conversion == .int, Self.holdsPlainInteger(UnsafeRawBufferPointer(rebasing: line[range])) {
            // "12890175984" to int: the digits between the quotes are the number's text.
            texts[index] = Text(base: .line, start: range.lowerBound + 1, end: range.upperBound - 1)
            return true
        }
        if canonical, conversion == .date, line[range.lowerBound] == UInt8(ascii: "\"") {
            // ISO 8601 text without escapes: read and written as bytes.
            let inner = UnsafeRawBufferPointer(rebasing: line[(range.lowerBound + 1)..<(range.upperBound - 1)])
            guard let date = CivilDate.parse(text: inner) else { return false }
            let start = scratch.count
            scratch.append(UInt8(ascii: "\""))
            date.appendISO8601(to: &scratch)
            scratch.append(UInt8(ascii: "\""))
            texts[index] = Text(base: .scratch, start: start, end: scratch.count)
            return true
        }
        guard let value = parse(.line, range.lowerBound, range.upperBound, line) else { return false }
        return fillValue(index, value, conversion: conversion)
    }

    /// Whether a canonical value prints the same after `conversion`: numbers to double (an
    /// integer of up to 15 digits is exact as a double, which prints as an integer), integers to
    /// int, bools to bool, strings to string, null to anything.
    private static func keepsText(_ conversion: Conversion?, _ text: UnsafeRawBufferPointer) -> Bool {
        guard let conversion, let first = text.first else { return true }
        switch first {
        case UInt8(ascii: "n"): return true
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            // To int only an integer as written (not `1e+300`, `1e-320` or 19 digits, which the
            // conversion may refuse); to double a double's text (the writer prints it the same)
            // or an integer of up to 15 digits (past 2^53 a double rounds it).
            switch conversion {
            case .int: return isPlainInteger(text)
            case .double: return !readsAsInteger(text) || text.count - (first == UInt8(ascii: "-") ? 1 : 0) <= 15
            default: return false
            }
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return conversion == .bool
        case UInt8(ascii: "\""): return conversion == .string
        default: return false
        }
    }

    /// Whether a value's text reads back as an int: a number without a fraction or exponent (a
    /// double the conversion makes of it prints so, and reads back as an int).
    static func readsAsInteger(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let first = text.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return !text.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
    }

    /// Whether a number's text is an int as the writer prints one — `0`, or an optional `-` and
    /// 1 to 18 digits without a leading zero (not `-0`, a double's text) — which converts to int
    /// as it is.
    static func isPlainInteger(_ text: UnsafeRawBufferPointer) -> Bool {
        let digits = text.first == UInt8(ascii: "-") ? text.dropFirst() : text[...]
        guard (1...18).contains(digits.count), digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return false
        }
        return digits.first != UInt8(ascii: "0") || (digits.count == 1 && text.count == 1)
    }

    /// Whether a JSON string's text (without escapes) holds an integer exactly as the writer
    /// prints it — `0`, or an optional `-` and up to 18 digits without a leading zero — so that
    /// converting it to int (which reads it with `Int(_:)`) gives the digits between the quotes.
    static func holdsPlainInteger(_ text: UnsafeRawBufferPointer) -> Bool {
        guard text.count >= 3, text.first == UInt8(ascii: "\"") else { return false }
        var i = 1
        let end = text.count - 1
        if text[i] == UInt8(ascii: "-") { i += 1 }
        let digits = end - i
        guard digits >= 1, digits <= 18 else { return false }
        if text[i] == UInt8(ascii: "0") { return digits == 1 && i == 1 }
        while i < end {
            guard text[i] >= UInt8(ascii: "0"), text[i] <= UInt8(ascii: "9") else { return false }
            i += 1
        }
        return true
    }

    // Kept out of the per-record functions (as is `fillArray`): a typed throw of the SDK's
    // `RecordError`, whose layout is known only at run time (library evolution), made every
    // function it was inlined into look the layout up on entry, as `parse` did with `JSONError`
    // (~20% of the compiled chain's own instructions).
    @inline(never)
    private mutating func fillValue(_ index: Int, _ value: Value, conversion: Conversion?) -> Bool {
        var converted = value
        if let conversion {
            do { converted = try conversion.apply(value, key: "") } catch { return false }
        }
        texts[index] = writeScratch(converted)
        return true
    }

    /// Fills slot `slot` with `step`'s edit of `value`; `false` when the edit rejects it.
    @inline(never)
    private mutating func fillEdited(_ slot: Int, _ value: Value, _ step: any KeyEditStep, _ index: Int) -> Bool {
        do { texts[slot] = writeScratch(try step.edit(value, at: index)) } catch { return false }
        return true
    }

    /// Fills slot `index` with `operation` applied to the array at located path `path`, then the
    /// rule's default, optional and conversion, in the order the mapping reformer applies them.
    @inline(never)
    private mutating func fillArray(
        _ index: Int, _ slot: Slot, _ path: Int, _ operation: ArrayOperation, _ line: UnsafeRawBufferPointer
    ) -> Bool {
        var value: Value?
        if let range = locator.ranges[path] {
            guard let array = parse(.line, range.lowerBound, range.upperBound, line) else { return false }
            do { value = try operation.apply(array, key: "") } catch { return false }  // not an array: the general path says so
        }
        if value?.isNull ?? true, let fallback = slot.fallback { value = fallback }
        guard let found = value else {
            guard slot.optional else { return false }
            texts[index] = Text(base: .constant, start: 0, end: 4)  // null
            return true
        }
        return fillValue(index, found, conversion: slot.conversion)
    }

    /// A template rendered into the scratch buffer as a JSON string: a mapping's over the line's
    /// located fields, a `set` step's over the slots. `nil` (the general path, which rejects the
    /// record) when a field it needs is missing or null, or does not parse.
    private mutating func render(_ pieces: [TemplatePiece], _ line: UnsafeRawBufferPointer) -> Text? {
        let start = scratch.count
        scratch.append(UInt8(ascii: "\""))
        for piece in pieces {
            let text: Text
            let canonical: Bool
            let optional: Bool
            switch piece {
            case .literal(let literal):
                scratch.append(contentsOf: literal)
                continue
            case .field(let path, let isOptional):
                guard let range = locator.ranges[path] else {
                    if isOptional { continue }
                    return nil
                }
                (text, canonical, optional) = (
                    Text(base: .line, start: range.lowerBound, end: range.upperBound), locator.canonical[path], isOptional
                )
            case .slot(let slot, let isOptional):
                // A slot's text is always as the writer prints it.
                (text, canonical, optional) = (texts[slot], true, isOptional)
            }
            let first = byte(text, at: text.start, line)
            if first == UInt8(ascii: "n") {
                if optional { continue }
                return nil
            }
            if canonical, first != UInt8(ascii: "{"), first != UInt8(ascii: "[") {
                // A canonical string's inside is already escaped as the output string needs;
                // numbers and bools read as their JSON text.
                let quoted = first == UInt8(ascii: "\"") ? 1 : 0
                if text.base == .line {
                    scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[(text.start + quoted)..<(text.end - quoted)]))
                } else {
                    for k in (text.start + quoted)..<(text.end - quoted) { scratch.append(byte(text, at: k, line)) }
                }
            } else {
                // Objects and arrays read as their JSON, other values as their text; the string escapes it.
                guard let value = parse(text.base, text.start, text.end, line) else { return nil }
                appendInsideOfString(value.plainText)
            }
        }
        scratch.append(UInt8(ascii: "\""))
        return Text(base: .scratch, start: start, end: scratch.count)
    }

    /// Appends `text` to the scratch buffer escaped as it goes inside a JSON string.
    private mutating func appendInsideOfString(_ text: String) {
        var quoted: [UInt8] = []
        JSON.write(.string(text), into: &quoted)
        scratch.append(contentsOf: quoted[1..<(quoted.count - 1)])
    }

    /// The byte at `index` of the buffer `text` lies in.
    private mutating func byte(_ text: Text, at index: Int, _ line: UnsafeRawBufferPointer) -> UInt8 {
        switch text.base {
        case .line: line[index]
        case .scratch: scratch[index]
        case .constant: constants[index]
        }
    }

    private mutating func writeScratch(_ value: Value) -> Text {
        if case .double(let d) = value, d.rounded(.towardZero) == d { wroteIntegralDouble = true }
        let start = scratch.count
        JSON.write(value, into: &scratch)
        return Text(base: .scratch, start: start, end: scratch.count)
    }

    private mutating func parse(_ base: Text.Base, _ start: Int, _ end: Int, _ line: UnsafeRawBufferPointer) -> Value? {
        switch base {
        case .line:
            return parser.parsedValue(UnsafeRawBufferPointer(rebasing: line[start..<end]))
        case .scratch:
            return scratch.withUnsafeBytes { bytes in parser.parsedValue(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) }
        case .constant:
            return constants.withUnsafeBytes { bytes in parser.parsedValue(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) }
        }
    }

    private static func isNull(_ range: Range<Int>, _ line: UnsafeRawBufferPointer) -> Bool {
        line[range.lowerBound] == UInt8(ascii: "n")
    }

    private mutating func isNull(_ text: Text, _ line: UnsafeRawBufferPointer) -> Bool {
        switch text.base {
        case .line: line[text.start] == UInt8(ascii: "n")
        case .scratch: scratch[text.start] == UInt8(ascii: "n")
        case .constant: constants[text.start] == UInt8(ascii: "n")
        }
    }
}
