/// A byte range of an NDJSON input (`--input MANAGER=PATH@START:END`), as Hadoop splits a file:
/// a record belongs to the range in which its line starts. Tasks given ranges that cover a file
/// end to end read each record exactly once, in order.
public struct InputRange: Sendable, Equatable {
    /// The file.
    public let path: String
    /// The first byte offset of the range.
    public let start: Int
    /// One past the last byte offset of the range.
    public let end: Int

    /// `path@START:END` split into the file and its range; `nil` when `text` has no range (or an
    /// end before its start).
    public static func parse(_ text: String) -> InputRange? {
        guard let at = text.lastIndex(of: "@") else { return nil }
        let numbers = text[text.index(after: at)...].split(separator: ":", omittingEmptySubsequences: false)
        guard numbers.count == 2, let start = Int(numbers[0]), let end = Int(numbers[1]), start >= 0, end >= start,
            at > text.startIndex
        else { return nil }
        return InputRange(path: String(text[..<at]), start: start, end: end)
    }

    /// What is wrong with the byte range `text` writes, or `nil` when it is a range ``parse(_:)``
    /// reads or no range at all. `text` is taken for a range when what follows its last `@`
    /// holds a `:` or only digits (`x.ndjson@100:50`, `@a:b`, `@5`); `user@host.ndjson` is a file
    /// name. A file of that very name is the caller's to look for first.
    public static func problem(in text: String) -> String? {
        guard TableAddress(text) == nil, parse(text) == nil, let at = text.lastIndex(of: "@") else { return nil }
        let suffix = text[text.index(after: at)...]
        guard suffix.contains(":") || Int(suffix) != nil else { return nil }
        let parts = suffix.split(separator: ":", omittingEmptySubsequences: false)
        let what: String
        if at == text.startIndex {
            what = "names no file before its @"
        } else if parts.count != 2 {
            what = "needs two byte offsets, START:END, after its @, not '\(suffix)'"
        } else if let bad = parts.first(where: { $0.isEmpty }) ?? parts.first(where: { Int($0) == nil }) {
            what = bad.isEmpty ? "needs both START and END, not '\(suffix)'" : "has '\(bad)' where a byte offset (a whole number) goes"
        } else if let start = Int(parts[0]), start < 0 {
            what = "starts at \(start), before the file's first byte (0)"
        } else {
            what = "ends (\(parts[1])) before it starts (\(parts[0]))"
        }
        return "the byte range '\(text)' \(what); write PATH@START:END with 0 <= START <= END, as in data.ndjson@0:1048576"
    }
}
