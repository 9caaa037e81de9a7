import ReformEngine

/// A unified-style line diff for test failures: `-` expected, `+` actual, a little context.
enum LineDiff {
    /// The differing lines of `expected` and `actual` (longest-common-subsequence alignment), at
    /// most `limit` `-`/`+` lines, with one line of context around each change.
    static func render(expected: [String], actual: [String], limit: Int = 20) -> [String] {
        let n = expected.count
        let m = actual.count
        guard n * m <= 4_000_000 else {
            return ["- (\(n) lines expected)", "+ (\(m) lines written; too long to align, compare the files)"]
        }
        var lcs = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lcs[i][j] = expected[i] == actual[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        enum Edit {
            case same(String)
            case removed(String)
            case added(String)
        }
        var edits: [Edit] = []
        var i = 0
        var j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i] == actual[j] {
                edits.append(.same(expected[i]))
                i += 1
                j += 1
            } else if i < n, j == m || lcs[i + 1][j] >= lcs[i][j + 1] {
                edits.append(.removed(expected[i]))
                i += 1
            } else {
                edits.append(.added(actual[j]))
                j += 1
            }
        }
        func isChange(_ k: Int) -> Bool {
            guard edits.indices.contains(k) else { return false }
            if case .same = edits[k] { return false }
            return true
        }
        var lines: [String] = []
        var changes = 0
        var lastShown = -1
        for (k, edit) in edits.enumerated() {
            switch edit {
            case .same(let line):
                guard isChange(k - 1) || isChange(k + 1) else { continue }
                if lastShown >= 0, lastShown < k - 1 { lines.append("  …") }
                lines.append("  \(line)")
            case .removed(let line), .added(let line):
                if changes == limit {
                    lines.append("  … (more differences)")
                    return lines
                }
                changes += 1
                if lastShown >= 0, lastShown < k - 1 { lines.append("  …") }
                if case .removed = edit { lines.append("- \(line)") } else { lines.append("+ \(line)") }
            }
            lastShown = k
        }
        return lines
    }
}
