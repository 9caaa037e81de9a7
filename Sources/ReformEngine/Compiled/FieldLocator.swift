import ReformSDK

/// Finds the values at a set of key paths (`id`, `location.district`) in an NDJSON line as byte
/// ranges, building nothing: the top level is located with one ``JSONParser/locate(_:keeping:into:canonical:)``
/// over the whole line (which also checks the line), each nested object that a path goes into
/// with another over that object's bytes.
///
/// A value type with its own scratch space, so each worker of a parallel run has one.
struct FieldLocator {
    /// One object level of the paths: the keys read there, and for each key the path it ends
    /// (a leaf) and the level below it, when paths go deeper.
    private struct Level {
        let projection: JSONProjection
        let leaf: [Int?]
        let child: [Int?]
    }

    private let levels: [Level]
    /// Each level's ranges and canonical flags, reused from line to line.
    private var levelRanges: [[Range<Int>?]]
    private var levelCanonical: [[Bool]]
    /// Per path (in the order given to ``init(paths:)``), the value's range in the line, or `nil`
    /// when the record lacks it; valid after ``locate(_:parser:)`` returned `true`.
    private(set) var ranges: [Range<Int>?]
    /// Per path, whether its bytes are already what the JSON writer prints.
    private(set) var canonical: [Bool]

    /// A locator of `paths`, each a list of object keys from the top level down (no indexes), none
    /// repeated (the compiler locates each path once).
    init(paths: [[String]]) {
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
        levels = keysPerLevel.indices.map { i in
            Level(projection: JSONProjection(keys: keysPerLevel[i]), leaf: leafAt[i], child: childAt[i])
        }
        levelRanges = keysPerLevel.map { _ in [] }
        levelCanonical = keysPerLevel.map { _ in [] }
        ranges = Array(repeating: nil, count: paths.count)
        canonical = Array(repeating: false, count: paths.count)
    }

    /// Locates every path in `line`; `false` when the line is not a valid JSON object (or is
    /// beyond `parser`'s limits), so the general path reports it.
    mutating func locate(_ line: UnsafeRawBufferPointer, parser: inout JSONParser) -> Bool {
        for i in ranges.indices { ranges[i] = nil }
        return locateLevel(0, in: line, offset: 0, parser: &parser)
    }

    private mutating func locateLevel(
        _ index: Int, in bytes: UnsafeRawBufferPointer, offset: Int, parser: inout JSONParser
    ) -> Bool {
        var found: [Range<Int>?] = []
        var canonicalFlags: [Bool] = []
        swap(&found, &levelRanges[index])
        swap(&canonicalFlags, &levelCanonical[index])
        defer {
            swap(&found, &levelRanges[index])
            swap(&canonicalFlags, &levelCanonical[index])
        }
        let level = levels[index]
        guard parser.locate(bytes, keeping: level.projection, into: &found, canonical: &canonicalFlags) else {
            return false
        }
        for key in found.indices {
            guard let range = found[key] else { continue }
            let absolute = (range.lowerBound + offset)..<(range.upperBound + offset)
            if let leaf = level.leaf[key] {
                ranges[leaf] = absolute
                canonical[leaf] = canonicalFlags[key]
            }
            // A path through a value that is not an object finds nothing there, as `value[path:]` does.
            if let child = level.child[key], bytes[range.lowerBound] == UInt8(ascii: "{") {
                let inner = UnsafeRawBufferPointer(rebasing: bytes[range])
                _ = locateLevel(child, in: inner, offset: absolute.lowerBound, parser: &parser)
            }
        }
        return true
    }
}
