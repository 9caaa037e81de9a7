/// The members of an object document to find, level by level: the keys kept at the top level and,
/// for a kept key whose value is an object, the level its own members are found in — so that
/// ``JSONParser/locate(_:plan:into:canonical:)`` finds `location.city` and `agent.phone` in one
/// pass over the document, instead of skipping `location` and reading it again.
@_spi(Engine) @frozen
public struct JSONLocatePlan: Sendable {
    /// The keys kept at each level; level 0 is the document's top level.
    public let levels: [JSONProjection]
    /// Per level, where its members' entries start in the flat ``JSONParser/locate(_:plan:into:canonical:)`` arrays.
    public let offsets: [Int]
    /// How many entries the flat arrays have: one per kept key of every level.
    public let count: Int
    /// Per level, how many keys it keeps.
    @usableFromInline let counts: [Int]
    /// Per entry, the level the members of its object value are found in (`nil`: none).
    @usableFromInline let children: [Int?]
    /// Per entry, its key's fingerprint.
    @usableFromInline let prints: [KeyPrint]
    /// Per level, an open-addressing table of its keys by fingerprint (``KeyTable``), one after
    /// another: a member's key is found in about one probe, where comparing it with each kept key
    /// of its level took 8 instructions a key (a sixth of locating a line).
    @usableFromInline let tables: [Int32]
    /// Per level, where its table starts in ``tables`` and its size less one (a power of two).
    @usableFromInline let tableStarts: [Int], tableMasks: [Int]

    /// A plan of `levels`; `children[level][key]` is the level that the members of the object at
    /// `levels[level].keys[key]` are found in. Each level below the top is the child of one key.
    public init(levels: [JSONProjection], children: [[Int?]]) {
        self.levels = levels
        var offsets: [Int] = []
        var flatChildren: [Int?] = []
        var prints: [KeyPrint] = []
        for (level, projection) in levels.enumerated() {
            offsets.append(prints.count)
            prints += projection.prints
            let childList = level < children.count ? children[level] : []
            flatChildren += projection.keys.indices.map { $0 < childList.count ? childList[$0] : nil }
        }
        self.offsets = offsets
        var tables: [Int32] = []
        var tableStarts: [Int] = []
        var tableMasks: [Int] = []
        for projection in levels {
            let table = KeyTable.make(projection.prints)
            tableStarts.append(tables.count)
            tableMasks.append(table.count - 1)
            tables += table
        }
        self.tables = tables
        self.tableStarts = tableStarts
        self.tableMasks = tableMasks
        counts = levels.map(\.keys.count)
        self.children = flatChildren
        self.prints = prints
        count = prints.count
    }

    /// The entry of key `key` (its position in `levels[level].keys`) in the flat arrays.
    public func entry(level: Int, key: Int) -> Int { offsets[level] + key }
}

extension JSONParser {
    /// Finds the values of the members `plan` keeps, at every level it names, as byte ranges of
    /// `bytes`, in one pass that checks the whole document as ``parse(_:)`` would; building nothing.
    ///
    /// `ranges` and `canonical` are resized to ``JSONLocatePlan/count``; entry
    /// ``JSONLocatePlan/entry(level:key:)`` is the range of that key's value (the last one when the
    /// key repeats; a nested level holds what the last value of its key held, nothing when that
    /// value is not an object) and whether its bytes are what ``JSON/write(_:into:)`` prints (see
    /// ``locate(_:keeping:into:canonical:)``). Returns `false` when the document is invalid or not
    /// an object.
    @_spi(Engine) public mutating func locate(
        _ bytes: UnsafeRawBufferPointer, plan: JSONLocatePlan, into ranges: inout [Range<Int>?], canonical: inout [Bool]
    ) -> Bool {
        guard var s = startLocating(bytes, entries: plan.count, ranges: &ranges, canonical: &canonical) else { return false }
        let found = ranges.withUnsafeMutableBufferPointer { ranges in
            canonical.withUnsafeMutableBufferPointer { canonical in
                plan.prints.withUnsafeBufferPointer { prints in
                    plan.children.withUnsafeBufferPointer { children in
                        plan.offsets.withUnsafeBufferPointer { offsets in
                            plan.counts.withUnsafeBufferPointer { counts in
                                plan.tables.withUnsafeBufferPointer { tables in
                                    let walk = PlanWalk(
                                        levels: plan.levels, offsets: offsets, counts: counts, prints: prints, children: children,
                                        tables: tables, tableStarts: plan.tableStarts, tableMasks: plan.tableMasks,
                                        ranges: ranges,
                                        canonical: canonical)
                                    // The document's object is a level of its own, as `parse(_:keeping:)` counts it.
                                    let outerLimit = limits.maximumDepth
                                    limits.maximumDepth = max(0, outerLimit - 1)
                                    defer { limits.maximumDepth = outerLimit }
                                    do {
                                        if outerLimit < 1, s.pos < s.end, s.base[s.pos] != UInt8(ascii: "}") { try checkDepth(&s, 0) }
                                        try walk.members(&s, level: 0, parser: &self)
                                        return true
                                    } catch {
                                        return false
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard found else { return false }
        s.skipWhitespace()
        return s.pos == s.end
    }
}

/// One pass of ``JSONParser/locate(_:plan:into:canonical:)``: the plan's arrays and the results
/// as buffers, taken once per document.
private struct PlanWalk {
    /// The plan's levels, read only for keys that need the slow match.
    let levels: [JSONProjection]
    let offsets: UnsafeBufferPointer<Int>
    let counts: UnsafeBufferPointer<Int>
    let prints: UnsafeBufferPointer<KeyPrint>
    let children: UnsafeBufferPointer<Int?>
    let tables: UnsafeBufferPointer<Int32>
    let tableStarts: [Int]
    let tableMasks: [Int]
    let ranges: UnsafeMutableBufferPointer<Range<Int>?>
    let canonical: UnsafeMutableBufferPointer<Bool>

    /// The members of the object `s` is inside (after its `{` and whitespace), through its `}`.
    func members(_ s: inout Scanner, level: Int, parser: inout JSONParser) throws(JSONError) {
        if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "}") {
            s.pos += 1
            return
        }
        let offset = offsets[level]
        let levelPrints = UnsafeBufferPointer(rebasing: prints[offset..<(offset + counts[level])])
        let table = KeyTable(entries: tables.baseAddress.map { $0 + tableStarts[level] }, mask: tableMasks[level])
        while true {
            if let key = try parser.locateKey(
                &s, find: { table.index(of: $0, in: levelPrints) }, slowMatch: { levels[level].index(of: $0, $1) })
            {
                let entry = offset + key
                let start = s.pos
                if let child = children[entry] {
                    clear(level: child)
                    if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "{") {
                        try nested(&s, level: child, parser: &parser)
                        canonical[entry] = false  // an object is re-encoded, as `skipCanonical` says
                    } else {
                        canonical[entry] = try parser.skipCanonical(&s)
                    }
                } else {
                    canonical[entry] = try parser.skipCanonical(&s)
                }
                ranges[entry] = start..<s.pos
            } else if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "\"") {
                // Most skipped members are strings: passed here rather than through skipValue's
                // container machinery.
                try parser.skipString(&s)
            } else {
                try parser.skipValue(&s)
            }
            s.skipWhitespace()
            guard s.pos < s.end else { throw s.error("expected ',' or '}' after an object member", found: true) }
            let c = s.base[s.pos]
            s.pos += 1
            if c == UInt8(ascii: "}") { return }
            guard c == UInt8(ascii: ",") else { throw s.error("expected ',' or '}' after an object member", found: true) }
            s.skipWhitespace()
        }
    }

    /// A member's object value (`s` at its `{`) located into `level`, with the depth checked as
    /// ``JSONParser/skipValue(_:)`` checks it: the object is one level down, its members' values
    /// one more.
    private func nested(_ s: inout Scanner, level: Int, parser: inout JSONParser) throws(JSONError) {
        s.pos += 1
        s.skipWhitespace()
        if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "}") {
            s.pos += 1
            return
        }
        try parser.checkDepth(&s, 0)
        let outer = parser.limits.maximumDepth
        parser.limits.maximumDepth = max(0, outer - 1)
        defer { parser.limits.maximumDepth = outer }
        try members(&s, level: level, parser: &parser)
    }

    /// Forgets what `level` and the levels below it held (a repeated key's earlier value).
    private func clear(level: Int) {
        let offset = offsets[level]
        for entry in offset..<(offset + counts[level]) {
            ranges[entry] = nil
            canonical[entry] = true
            if let child = children[entry] { clear(level: child) }
        }
    }
}

/// An open-addressing table of a level's kept keys by fingerprint: entry `slot(of:) & mask` (and
/// the ones after it, wrapping) holds a key's position plus one, 0 where the probe ends.
struct KeyTable {
    let entries: UnsafePointer<Int32>?
    let mask: Int

    /// A table for `prints`: a power of two of at least eight times as many entries, 16 at least.
    /// Most keys looked up are not kept, so the probe should end at once: up to half full, a miss
    /// took 2.2 probes on the chain benchmark.
    static func make(_ prints: [KeyPrint]) -> [Int32] {
        var size = 16
        while size < 8 * prints.count { size *= 2 }
        var table = [Int32](repeating: 0, count: size)
        for (position, print) in prints.enumerated() {
            var slot = slot(of: print) & (size - 1)
            while table[slot] != 0 { slot = (slot + 1) & (size - 1) }
            table[slot] = Int32(truncatingIfNeeded: position + 1)
        }
        return table
    }

    /// Where the probe for `print` starts (before masking): one multiply of the key's first eight
    /// bytes and length (the two-word hash of ``KeyPrint/slot`` cost as much as the probe saved).
    @inline(__always)
    static func slot(of print: KeyPrint) -> Int {
        Int(truncatingIfNeeded: ((print.low ^ UInt64(truncatingIfNeeded: print.length)) &* 0x9E37_79B9_7F4A_7C15) >> 48)
    }

    /// The position in `prints` (the prints the table was made of) of the key whose fingerprint
    /// is `print`.
    @inline(__always)
    func index(of print: KeyPrint, in prints: UnsafeBufferPointer<KeyPrint>) -> Int? {
        guard let entries else { return nil }
        var slot = Self.slot(of: print) & mask
        while true {
            let entry = Int(entries[slot])
            if entry == 0 { return nil }
            if prints[entry - 1] == print { return entry - 1 }
            slot = (slot &+ 1) & mask
        }
    }
}
