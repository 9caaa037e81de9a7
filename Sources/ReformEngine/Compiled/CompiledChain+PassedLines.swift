@_spi(Engine) import ReformSDK

extension CompiledChain {
    /// Appends a line that passed a chain of `filter`, `drop` and `rename` steps in the writer's
    /// form (``writePassed(_:into:)``): as it came when it is the writer's bytes; rewritten when
    /// only its whitespace, numbers' forms and string values' escapes differ (a program that
    /// writes `": "`, `", "` and `4.0`, an API that writes `\/` or `\u00e9`), and located again in
    /// the rewritten bytes when members are dropped or renamed; `false` (nothing appended)
    /// otherwise, for the general path to parse and print.
    mutating func writePassedInWrittenForm(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        let verdict = JSON.writtenFormVerdict(line)
        switch verdict {
        case .written:
            return writePassed(line, into: &out)
        case .unproven:
            return false
        case .rewritable:
            // Taken out of the chain while it is read, as the methods below use the chain.
            var bytes: [UInt8] = []
            swap(&bytes, &rewritten)
            defer { swap(&bytes, &rewritten) }
            bytes.removeAll(keepingCapacity: true)
            guard parser.appendWrittenForm(of: line, verdict: verdict, to: &bytes) else { return false }
            return bytes.withUnsafeBytes { bytes in
                if droppedMembers.isEmpty && renamedMembers.isEmpty { return writePassed(bytes, into: &out) }
                return locator.locate(bytes, parser: &parser) && writePassed(bytes, into: &out)
            }
        }
    }

    /// Appends a line that passed a chain of `filter`, `drop` and `rename` steps
    /// (``passesLines``), in the writer's form: as it came, less the ``droppedMembers`` it has and
    /// with the ``renamedMembers`` it has under their new names; `false` (nothing appended) when
    /// such a member is not where the writer's form puts it.
    ///
    /// In the writer's form a top-level member is `"key":value` with nothing around it but the
    /// commas between members, so a member starts its key's length and three bytes before its
    /// value. The line is the text between the dropped members, each piece without the commas at
    /// its ends, joined again by single commas; a renamed member's `"key":` is written anew.
    mutating func writePassed(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        guard !droppedMembers.isEmpty || !renamedMembers.isEmpty else {
            out.append(contentsOf: line)
            out.append(UInt8(ascii: "\n"))
            return true
        }
        guard line.count >= 2, line[0] == UInt8(ascii: "{"), line[line.count - 1] == UInt8(ascii: "}") else { return false }
        // Each edit: the bytes it covers, and the new name for a rename (`nil`: a drop).
        var edits: [(range: Range<Int>, name: [UInt8]?)] = []
        func member(_ path: Int, _ keyLength: Int) -> Range<Int>?? {
            guard let value = locator.ranges[path] else { return .some(nil) }
            let start = value.lowerBound - keyLength - 3
            guard start >= 1, line[start] == UInt8(ascii: "\""), line[value.lowerBound - 1] == UInt8(ascii: ":") else { return nil }
            return .some(start..<value.upperBound)
        }
        for dropped in droppedMembers {
            guard let found = member(dropped.path, dropped.keyLength) else { return false }
            if let range = found { edits.append((range, nil)) }
        }
        for renamed in renamedMembers {
            guard let found = member(renamed.path, renamed.keyLength) else { return false }
            // Only the key is rewritten: the edit covers `"key":`, the value stays in the piece.
            if let range = found { edits.append((range.lowerBound..<(range.lowerBound + renamed.keyLength + 3), renamed.to)) }
        }
        edits.sort { $0.range.lowerBound < $1.range.lowerBound }
        let mark = out.count
        out.append(UInt8(ascii: "{"))
        var wroteMember = false
        var from = 1
        // Whether the text at `from` is the value of a member whose new name was just written.
        var continuing = false
        // The text from `from` to `end`, less the commas at its ends (but the start of a renamed
        // member's value), after a comma when it starts a member and one was written.
        func piece(to end: Int) {
            var start = from
            var end = end
            if !continuing { while start < end, line[start] == UInt8(ascii: ",") { start += 1 } }
            while end > start, line[end - 1] == UInt8(ascii: ",") { end -= 1 }
            guard start < end else { return }
            if wroteMember && !continuing { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[start..<end]))
            wroteMember = true
        }
        for edit in edits {
            guard edit.range.lowerBound >= from else {
                out.removeSubrange(mark...)
                return false
            }
            piece(to: edit.range.lowerBound)
            if let name = edit.name {
                if wroteMember { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: name)
                out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
                wroteMember = true
                continuing = true
            } else {
                continuing = false
            }
            from = edit.range.upperBound
        }
        piece(to: line.count - 1)
        out.append(UInt8(ascii: "}"))
        out.append(UInt8(ascii: "\n"))
        return true
    }
}
