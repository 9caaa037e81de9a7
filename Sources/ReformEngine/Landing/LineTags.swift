import ReformSystem

/// Which lines of a tagged input (`--tagged-input`) one manager reads.
///
/// A tagged line is `MANAGER<TAB>JSON`: the manager's name, a tab, and the record. Each manager of
/// the run reads the file and takes the lines tagged with its name; the other managers' lines are
/// skipped. A line without a tab, or tagged with a name that is not a manager of the run, is
/// reported by one manager only (``reportsStrays``), so it is dead-lettered exactly once.
struct LineTags: Sendable {
    /// What a reader does with one line.
    enum Verdict {
        /// The line is this manager's: parse what follows the tag (`dropping` bytes: tag and tab).
        case take(dropping: Int)
        /// Another manager's line (or a stray another manager reports).
        case skip
        /// A stray line this manager reports, and why.
        case stray(String)
    }

    /// The manager's name as bytes.
    let tag: [UInt8]
    /// The names of the run's managers, for telling strays from other managers' lines.
    let managers: [String]
    /// Whether this manager reports lines that belong to no manager of the run.
    let reportsStrays: Bool

    init(manager: String, managers: [String], reportsStrays: Bool) {
        tag = Array(manager.utf8)
        self.managers = managers
        self.reportsStrays = reportsStrays
    }

    /// What to do with `line` (its bytes without the line end).
    func verdict(on line: UnsafeRawBufferPointer) -> Verdict {
        guard let base = line.baseAddress, let found = memchr(base, 0x09, line.count) else {
            return reportsStrays
                ? .stray("the line has no tag: a tagged input's lines are MANAGER<TAB>JSON (one of: \(managers.joined(separator: ", ")))")
                : .skip
        }
        let width = UnsafeRawPointer(found) - base
        if width == tag.count, tag.withUnsafeBytes({ own in own.baseAddress.map { memcmp(base, $0, width) == 0 } ?? (width == 0) }) {
            return .take(dropping: width + 1)
        }
        guard reportsStrays else { return .skip }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<width]), as: UTF8.self)
        if managers.contains(name) { return .skip }
        return .stray(
            "the line is tagged '\(name)', which is not a manager of this run" + Suggestions.hint(for: name, in: managers)
                + " (its managers: \(managers.joined(separator: ", ")))")
    }
}
