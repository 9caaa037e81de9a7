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
}
