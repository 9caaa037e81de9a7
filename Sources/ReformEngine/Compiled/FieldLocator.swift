@_spi(Engine) import ReformSDK

/// Finds the values at a set of key paths (`id`, `location.district`) in an NDJSON line as byte
/// ranges, building nothing, in one pass over the line that also checks it
/// (``JSONParser/locate(_:plan:into:canonical:)``): the paths' keys make a plan of levels, each
/// nested object a path goes into being located as the pass reaches it.
///
/// A value type with its own scratch space, so each worker of a parallel run has one.
struct FieldLocator {
    private let plan: JSONLocatePlan
    /// Per entry of the plan, the path it ends (a leaf), if any.
    private let leafOfEntry: [Int?]
    /// The plan's ranges and canonical flags, reused from line to line.
    private var entryRanges: [Range<Int>?] = []
    private var entryCanonical: [Bool] = []
    /// Per path (in the order given to ``init(paths:)``), the value's range in the line, or `nil`
    /// when the record lacks it; valid after ``locate(_:parser:)`` returned `true`.
    private(set) var ranges: [Range<Int>?]
    /// Per path, whether its bytes are already what the JSON writer prints.
    private(set) var canonical: [Bool]

    /// The paths it locates, in the order ``ranges`` gives them.
    let paths: [[String]]

    /// A locator of `paths`, each a list of object keys from the top level down (no indexes), none
    /// repeated (the compiler locates each path once).
    init(paths: [[String]]) {
        self.paths = paths
        var keysPerLevel: [[String]] = [[]]
        var leafAt: [[Int?]] = [[]]
        var childAt: [[Int?]] = [[]]
        for (index, path) in paths.enumerated() {
            var level = 0
            for (depth, key) in path.enumerated() {
                var slot = keysPerLevel[level].firstIndex(of: key)
                if slot == nil {
                    keysPerLevel[level].append(key)
                    leafAt[level].append(nil)
                    childAt[level].append(nil)
                    slot = keysPerLevel[level].count - 1
                }
                guard let position = slot else { break }
                if depth == path.count - 1 {
                    leafAt[level][position] = index
                } else {
                    if childAt[level][position] == nil {
                        keysPerLevel.append([])
                        leafAt.append([])
                        childAt.append([])
                        childAt[level][position] = keysPerLevel.count - 1
                    }
                    level = childAt[level][position] ?? 0
                }
            }
        }
        plan = JSONLocatePlan(levels: keysPerLevel.map { JSONProjection(keys: $0) }, children: childAt)
        var leaves: [Int?] = Array(repeating: nil, count: plan.count)
        for (level, list) in leafAt.enumerated() {
            for (key, leaf) in list.enumerated() { leaves[plan.entry(level: level, key: key)] = leaf }
        }
        leafOfEntry = leaves
        ranges = Array(repeating: nil, count: paths.count)
        canonical = Array(repeating: false, count: paths.count)
    }

    /// Locates every path in `line`; `false` when the line is not a valid JSON object (or is
    /// beyond `parser`'s limits), so the general path reports it. A path through a value that is
    /// not an object finds nothing there, as `value[path:]` does.
    mutating func locate(_ line: UnsafeRawBufferPointer, parser: inout JSONParser) -> Bool {
        guard parser.locate(line, plan: plan, into: &entryRanges, canonical: &entryCanonical) else { return false }
        // Through the buffers (a checked write asks each time whether the array is shared),
        // taken out of `self` meanwhile so that reading its other arrays does not overlap.
        var ranges: [Range<Int>?] = []
        var canonical: [Bool] = []
        swap(&ranges, &self.ranges)
        swap(&canonical, &self.canonical)
        ranges.withUnsafeMutableBufferPointer { ranges in
            canonical.withUnsafeMutableBufferPointer { canonical in
                for (entry, leaf) in leafOfEntry.enumerated() {
                    guard let leaf else { continue }
                    ranges[leaf] = entryRanges[entry]
                    canonical[leaf] = entryCanonical[entry]
                }
            }
        }
        swap(&ranges, &self.ranges)
        swap(&canonical, &self.canonical)
        return true
    }

    /// Takes the ranges another locator found in the same line for these paths: path `i` here is
    /// path `paths[i]` there (``FanOut`` locates the paths of several chains in one pass).
    mutating func adopt(_ other: borrowing FieldLocator, paths: [Int]) {
        for (index, path) in paths.enumerated() {
            ranges[index] = other.ranges[path]
            canonical[index] = other.canonical[path]
        }
    }
}
