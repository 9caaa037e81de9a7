/// The raw input seen by line and column, for the checks libyaml leaves out.
///
/// Lines break where libyaml breaks them (`\n`, `\r\n`, `\r`, NEL, LS, PS); columns count Unicode
/// scalars. Only UTF-8 input is indexed: for UTF-16 input every look-up answers `nil`, so the
/// checks that need the text are skipped.
struct SourceText {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let isUTF8: Bool
    private var lineStarts: [Int]?

    /// A view of `bytes`, which must outlive it.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // libyaml reads UTF-16 only after a byte order mark; a NUL in the first two bytes also
        // means UTF-16. Either way the text is not indexed.
        let head = Array(bytes.prefix(2))
        isUTF8 = !(head == [0xFE, 0xFF] || head == [0xFF, 0xFE] || head.contains(0))
    }

    /// The characters of 1-based line `line`, without its line break.
    mutating func line(_ line: Int) -> [Unicode.Scalar]? {
        guard isUTF8 else { return nil }
        let starts = indexedLineStarts()
        guard line >= 1, line <= starts.count else { return nil }
        let start = starts[line - 1]
        let end = line < starts.count ? starts[line] : bytes.count
        // Drop the line break (one to three bytes) from the end.
        var scalars = Array(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self).unicodeScalars)
        while let last = scalars.last, Self.isBreak(last) {
            scalars.removeLast()
        }
        return scalars
    }

    /// The character at `location`, or `nil` past the end of its line.
    mutating func character(at location: SourceLocation) -> Unicode.Scalar? {
        guard let text = line(location.line), location.column >= 1, location.column <= text.count else { return nil }
        return text[location.column - 1]
    }

    private static func isBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }

    private mutating func indexedLineStarts() -> [Int] {
        if let lineStarts { return lineStarts }
        var starts = [bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0]
        var i = starts[0]
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x0A {
                starts.append(i + 1)
            } else if byte == 0x0D {
                if i + 1 < bytes.count, bytes[i + 1] == 0x0A { i += 1 }
                starts.append(i + 1)
            } else if byte == 0xC2, i + 1 < bytes.count, bytes[i + 1] == 0x85 {
                i += 1
                starts.append(i + 1)
            } else if byte == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 {
                i += 2
                starts.append(i + 1)
            }
            i += 1
        }
        lineStarts = starts
        return starts
    }
}
