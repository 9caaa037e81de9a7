extension CompiledChain {
    /// Appends a line that passed a chain of `filter` and `drop` steps (``passesLines``), in the
    /// writer's form: as it came, less the ``droppedMembers`` it has; `false` (nothing appended)
    /// when a dropped member is not where the writer's form puts it.
    ///
    /// In the writer's form a top-level member is `"key":value` with nothing around it but the
    /// commas between members, so a dropped member starts its key's length and three bytes before
    /// its value. The line is the text between the dropped members, each piece without the commas
    /// at its ends, joined again by single commas.
    mutating func writePassed(_ line: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        guard !droppedMembers.isEmpty else {
            out.append(contentsOf: line)
            out.append(UInt8(ascii: "\n"))
            return true
        }
        var cuts: [Range<Int>] = []
        for member in droppedMembers {
            guard let value = locator.ranges[member.path] else { continue }
            let start = value.lowerBound - member.keyLength - 3
            guard start >= 1, line[start] == UInt8(ascii: "\""), line[value.lowerBound - 1] == UInt8(ascii: ":") else { return false }
            cuts.append(start..<value.upperBound)
        }
        guard line.count >= 2, line[0] == UInt8(ascii: "{"), line[line.count - 1] == UInt8(ascii: "}") else { return false }
        cuts.sort { $0.lowerBound < $1.lowerBound }
        let mark = out.count
        out.append(UInt8(ascii: "{"))
        var wroteMember = false
        var from = 1
        for cut in cuts + [(line.count - 1)..<line.count] {
            // The members between the last cut and this one, less the commas at their ends.
            var start = from
            var end = cut.lowerBound
            while start < end, line[start] == UInt8(ascii: ",") { start += 1 }
            while end > start, line[end - 1] == UInt8(ascii: ",") { end -= 1 }
            if start < end {
                if wroteMember { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[start..<end]))
                wroteMember = true
            }
            from = cut.upperBound
        }
        guard from == line.count else {
            out.removeSubrange(mark...)
            return false
        }
        out.append(UInt8(ascii: "}"))
        out.append(UInt8(ascii: "\n"))
        return true
    }
}
