package import ReformSDK
import ReformYAML

/// A pipeline `reform init` is about to write: sections of named entries, each value on one line
/// in flow style or as a nested block, with the comments that say what was inferred and what was not.
package struct PipelineDraft: Sendable {
    /// One `key: value` line, or `key:` and a nested block.
    package struct Entry: Sendable {
        /// What the entry holds.
        package enum Content: Sendable {
            /// A value written on the key's line (`paging: { policy: link }`).
            case flow(Value)
            /// Entries written below the key, two spaces in.
            case block([Entry])
        }

        /// The key.
        package var key: String
        /// The value.
        package var content: Content
        /// Comment lines written above the entry.
        package var notes: [String]
        /// A comment written after the value on its line.
        package var comment: String?

        /// An entry writing `value` on the key's line.
        package init(_ key: String, _ value: Value, comment: String? = nil, notes: [String] = []) {
            self.key = key
            content = .flow(value)
            self.comment = comment
            self.notes = notes
        }

        /// An entry with `entries` below the key.
        package init(_ key: String, block entries: [Entry], comment: String? = nil, notes: [String] = []) {
            self.key = key
            content = .block(entries)
            self.comment = comment
            self.notes = notes
        }
    }

    /// The widest a `key: { … }` line is written; a wider mapping is written one member per line.
    static let lineWidth = 110

    /// Comment lines at the top of the file, after the schema line.
    package var header: [String] = []
    /// The top-level entries in order (`reform`, `name`, `services`, `managers`, …).
    package var entries: [Entry] = []

    /// A draft with no entries.
    package init() {}

    /// The pipeline as YAML: `schemaLine` (a `# yaml-language-server: $schema=…` comment, when
    /// given), the header comments, then the entries, with a blank line between top-level sections.
    package func yaml(schemaLine: String? = nil) -> String {
        var out = ""
        if let schemaLine { out += schemaLine + "\n" }
        for line in header { out += line.isEmpty ? "#\n" : "# \(Self.oneLine(line))\n" }
        for (position, entry) in entries.enumerated() {
            if position > 0, case .block = entry.content { out += "\n" }
            write(entry, indent: 0, to: &out)
        }
        return out
    }

    private func write(_ entry: Entry, indent: Int, to out: inout String) {
        let pad = String(repeating: " ", count: indent)
        for note in entry.notes { out += "\(pad)# \(Self.oneLine(note))\n" }
        let key = YAMLWriter().flow(.string(entry.key))
        let comment = entry.comment.map { "  # \(Self.oneLine($0))" } ?? ""
        switch entry.content {
        case .flow(.object(let object))
        where object.count > 1 && indent + key.count + YAMLWriter().flow(.object(object)).count > Self.lineWidth:
            // Too wide for one line: one member per line, each in flow style.
            out += "\(pad)\(key):\(comment)\n"
            for member in object.members { write(Entry(member.key, member.value), indent: indent + 2, to: &out) }
        case .flow(let value):
            out += "\(pad)\(key): \(YAMLWriter().flow(value))\(comment)\n"
        case .block(let entries) where entries.isEmpty:
            out += "\(pad)\(key): {}\(comment)\n"
        case .block(let entries):
            out += "\(pad)\(key):\(comment)\n"
            for nested in entries { write(nested, indent: indent + 2, to: &out) }
        }
    }

    /// `text` on one line: a comment cannot hold a line break.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }
}
