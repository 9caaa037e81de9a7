extension JSONParser {
    /// Appends to `out` the bytes ``JSON/write(_:into:)`` prints for the valid document `bytes`,
    /// when ``JSON/writtenFormVerdict(_:)`` says they are ``JSON/WrittenFormVerdict/written`` (they
    /// are copied) or ``JSON/WrittenFormVerdict/rewritable``: then whitespace outside strings is
    /// left out, each string that has an escape or a raw DEL and each number not in the writer's
    /// form is read as ``parse(_:)`` reads it and written as the writer writes it, and the rest is
    /// copied — without building the document's values. A record from an API that writes `\/` or
    /// `\u00e9`, or from a program that puts a space after each colon and comma (Python's
    /// `json.dumps`) or writes `4.0`, is then passed on at the cost of a pass over its bytes.
    ///
    /// `verdict` is the document's verdict when the caller has it already (so it is not worked out
    /// twice); a verdict that is not the document's makes the bytes appended meaningless.
    /// Returns `false`, appending nothing, for a document of any other verdict.
    @_spi(Engine) public mutating func appendWrittenForm(
        of bytes: UnsafeRawBufferPointer, verdict: JSON.WrittenFormVerdict? = nil, to out: inout [UInt8]
    ) -> Bool {
        switch verdict ?? JSON.writtenFormVerdict(bytes) {
        case .written:
            out.append(contentsOf: bytes)
            return true
        case .unproven:
            return false
        case .rewritable:
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            let mark = out.count
            let done = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteSink.stackCapacity) { stack in
                guard let stackBase = stack.baseAddress else { return false }
                var sink = ByteSink(base: stackBase, capacity: stack.count)
                defer { sink.flush(into: &out) }
                return rewrite(Scanner(base: base, end: bytes.count), sink: &sink, out: &out)
            }
            if !done { out.removeSubrange(mark...) }
            return done
        }
    }

    /// Copies the document `s` holds to `sink` without its whitespace outside strings, each string
    /// with an escape or a raw DEL and each number not in the writer's form read and written
    /// again; `false` if one does not parse (the document was not valid).
    private mutating func rewrite(_ document: Scanner, sink: inout ByteSink, out: inout [UInt8]) -> Bool {
        var s = document
        let base = s.base
        // Where the text not yet copied starts.
        var copied = 0
        var i = 0
        while i < s.end {
            switch base[i] {
            case UInt8(ascii: "\""):
                // A string: passed over when it has neither a backslash nor DEL. (Asking
                // `skipCanonical` instead would check each string's UTF-8 again: 13% more
                // instructions on lines from `json.dumps`.)
                let start = i
                var plain = true
                i += 1
                while true {
                    i = WrittenFormCheck.firstSpecial(base, from: i, end: s.end, stopAtHighBytes: false)
                    guard i < s.end else { return false }
                    if base[i] == UInt8(ascii: "\"") { break }
                    plain = false
                    i += base[i] == UInt8(ascii: "\\") ? 2 : 1
                }
                i += 1
                guard !plain else { continue }
                sink.bytes(base + copied, start - copied, &out)
                s.pos = start
                guard let text = try? parseString(&s) else { return false }
                sink.string(text, &out)
                copied = s.pos
                i = s.pos
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                // A number (its bytes up to the `,`, `]`, `}` or whitespace after it).
                let start = i
                i += 1
                while i < s.end, Self.continuesNumber(base[i]) { i += 1 }
                guard !JSONParser.isCanonicalNumber(base, from: start, to: i) else { continue }
                sink.bytes(base + copied, start - copied, &out)
                s.pos = start
                guard let number = try? parseNumber(&s) else { return false }
                sink.value(number, into: &out)
                copied = s.pos
                i = s.pos
            case 0x20, 0x09, 0x0A, 0x0D:
                sink.bytes(base + copied, i - copied, &out)
                i += 1
                while i < s.end, base[i] == 0x20 || base[i] == 0x09 || base[i] == 0x0A || base[i] == 0x0D { i += 1 }
                copied = i
            default:
                i += 1
            }
        }
        sink.bytes(base + copied, s.end - copied, &out)
        return true
    }

    /// Whether `byte` may follow a number's first byte in it: a digit, `.`, `e`, `E`, `+`, `-`.
    private static func continuesNumber(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"),
            UInt8(ascii: "-"):
            true
        default: false
        }
    }
}
