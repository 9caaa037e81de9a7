extension JSONParser {
    /// Appends to `out` the bytes ``JSON/write(_:into:)`` prints for the valid document `bytes`,
    /// when ``JSON/writtenFormVerdict(_:)`` says they are ``JSON/WrittenFormVerdict/written`` or
    /// ``JSON/WrittenFormVerdict/rewritableEscapes``: everything outside the strings that have an
    /// escape or a raw DEL is copied, and each of those strings is decoded as ``parse(_:)`` decodes
    /// it and written as the writer writes it — without building the document's values. A record
    /// from an API that writes `\/` or `\u00e9` is then passed on at the cost of its strings.
    ///
    /// `verdict` is the document's verdict when the caller has it already (so it is not worked out
    /// twice); a verdict that is not the document's makes the bytes appended meaningless.
    /// Returns `false`, appending nothing, for a document of any other verdict.
    public mutating func appendRewritingEscapes(
        _ bytes: UnsafeRawBufferPointer, verdict: JSON.WrittenFormVerdict? = nil, to out: inout [UInt8]
    ) -> Bool {
        switch verdict ?? JSON.writtenFormVerdict(bytes) {
        case .written:
            out.append(contentsOf: bytes)
            return true
        case .unproven:
            return false
        case .rewritableEscapes:
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            let mark = out.count
            let done = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteSink.stackCapacity) { stack in
                guard let stackBase = stack.baseAddress else { return false }
                var sink = ByteSink(base: stackBase, capacity: stack.count)
                defer { sink.flush(into: &out) }
                return rewriteStrings(Scanner(base: base, end: bytes.count), sink: &sink, out: &out)
            }
            if !done { out.removeSubrange(mark...) }
            return done
        }
    }

    /// Copies the document `s` holds to `sink`, each string with an escape or a raw DEL decoded and
    /// written again; `false` if a string does not parse (the document was not valid).
    private mutating func rewriteStrings(_ document: Scanner, sink: inout ByteSink, out: inout [UInt8]) -> Bool {
        var s = document
        let base = s.base
        // Where the text not yet copied starts, and the opening quote of the string the cursor is
        // in (outside strings the document has no quotes, backslashes or DEL).
        var copied = 0
        var stringStart: Int? = nil
        var i = 0
        while true {
            i = WrittenFormCheck.firstSpecial(base, from: i, end: s.end, stopAtHighBytes: false)
            guard i < s.end else { break }
            if base[i] == UInt8(ascii: "\"") {
                stringStart = stringStart == nil ? i : nil
                i += 1
                continue
            }
            // An escape or DEL: the string it is in is decoded and written again.
            guard let start = stringStart else { return false }
            sink.bytes(base + copied, start - copied, &out)
            s.pos = start
            guard let text = try? parseString(&s) else { return false }
            sink.string(text, &out)
            copied = s.pos
            i = s.pos
            stringStart = nil
        }
        sink.bytes(base + copied, s.end - copied, &out)
        return true
    }
}
