/// Text that will be shown on a terminal, with its control characters written as escapes, so that
/// bytes from a file or a server (a response body quoted in an error, a table cell) cannot move
/// the cursor, clear the screen, set the window title or forge coloured text
/// (reliability audit D15).
public enum ControlEscapes {
    /// `bytes` as text with C0 controls, DEL and C1 controls escaped: `\n`, `\r`, `\t`, and
    /// `\u001b` for the others. With `keepingLineBreaks`, `\n` and `\t` stay as they are (a
    /// multi-line message).
    public static func escaping(_ bytes: [UInt8], keepingLineBreaks: Bool = false) -> String {
        func needsEscape(_ i: Int) -> Bool {
            let byte = bytes[i]
            if keepingLineBreaks && (byte == 0x0A || byte == 0x09) { return false }
            return byte < 0x20 || byte == 0x7F || (byte == 0xC2 && i + 1 < bytes.count && bytes[i + 1] >= 0x80 && bytes[i + 1] < 0xA0)
        }
        guard bytes.indices.contains(where: needsEscape) else { return String(decoding: bytes, as: UTF8.self) }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(bytes.count + 8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            guard needsEscape(i) else {
                escaped.append(byte)
                i += 1
                continue
            }
            if byte == 0xC2 {
                appendEscape(of: bytes[i + 1], into: &escaped)
                i += 2
                continue
            }
            switch byte {
            case 0x0A: escaped.append(contentsOf: "\\n".utf8)
            case 0x0D: escaped.append(contentsOf: "\\r".utf8)
            case 0x09: escaped.append(contentsOf: "\\t".utf8)
            default: appendEscape(of: byte, into: &escaped)
            }
            i += 1
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// `text` with its control characters escaped (see ``escaping(_:keepingLineBreaks:)-([UInt8],_)``).
    public static func escaping(_ text: String, keepingLineBreaks: Bool = false) -> String {
        escaping(Array(text.utf8), keepingLineBreaks: keepingLineBreaks)
    }

    /// Escapes the control characters of `buffer[start...]` in place, line feeds and tabs kept
    /// (a cell written to a terminal).
    static func escape(_ buffer: inout [UInt8], from start: Int) {
        guard buffer[start...].contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) else { return }
        let escaped = escaping(Array(buffer[start...]), keepingLineBreaks: true)
        buffer.replaceSubrange(start..., with: escaped.utf8)
    }

    private static func appendEscape(of code: UInt8, into bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: "\\u00".utf8)
        bytes.append(hex[Int(code >> 4)])
        bytes.append(hex[Int(code & 0xF)])
    }
}
