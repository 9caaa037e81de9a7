/// "Did you mean" suggestions by edit distance.
package enum Suggestions {
    /// The candidate closest to `word`, when it is close enough to be a likely typo.
    package static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let target = Array(word.lowercased().unicodeScalars)
        var best: (String, Int)?
        let lowered = word.lowercased()
        for candidate in candidates {
            let other = candidate.lowercased()
            if lowered.count >= 3, other.count >= 3, lowered.hasPrefix(other) || other.hasPrefix(lowered) {
                return candidate
            }
            let distance = editDistance(target, Array(candidate.lowercased().unicodeScalars))
            if distance <= max(1, min(target.count, candidate.count) / 3 + 1), distance < (best?.1 ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.0
    }

    /// `; did you mean 'x'?` or an empty string.
    package static func hint(for word: String, in candidates: some Sequence<String>) -> String {
        guard let match = closest(to: word, in: candidates) else { return "" }
        return "; did you mean '\(match)'?"
    }

    private static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
