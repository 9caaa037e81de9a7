import ReformSDK

// TEMPORARY — to be replaced by `JSON.write` / `JSON.writePretty` from ReformSDK (branch `json`).
//
// When that branch is merged, delete this file: the output writers call `JSON.write(_:into:)` and
// `JSON.writePretty(_:indent:into:)` by those names, so they then resolve to ReformSDK's `JSON`
// (a type in this module shadows an imported one of the same name, which is why this one must go).
//
// Until then this is a minimal writer: structure, strings and escapes match `jq -c` and `jq .`;
// numbers are close but not exact (integral doubles below 1e16 print without a fraction, others use
// Swift's shortest round-trip form, non-finite doubles print `null`).

/// Temporary compact and pretty JSON writer for the output writers; see the note above.
enum JSON {
    /// Appends `value` as compact JSON (as `jq -c` prints it) to `bytes`.
    static func write(_ value: Value, into bytes: inout [UInt8]) {
        switch value {
        case .null: append("null", into: &bytes)
        case .bool(let b): append(b ? "true" : "false", into: &bytes)
        case .int(let i): writeInt(i, into: &bytes)
        case .double(let d): writeDouble(d, into: &bytes)
        case .string(let s): writeString(s, into: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(member.value, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `value` pretty-printed (as `jq .` prints it with `indent` spaces a level) to `bytes`.
    static func writePretty(_ value: Value, indent: Int = 2, into bytes: inout [UInt8]) {
        writePretty(value, indent: indent, depth: 0, into: &bytes)
    }

    private static func writePretty(_ value: Value, indent: Int, depth: Int, into bytes: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            bytes.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(indent: indent, depth: depth + 1, into: &bytes)
                writePretty(element, indent: indent, depth: depth + 1, into: &bytes)
            }
            newline(indent: indent, depth: depth, into: &bytes)
            bytes.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            bytes.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(indent: indent, depth: depth + 1, into: &bytes)
                writeString(member.key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                bytes.append(UInt8(ascii: " "))
                writePretty(member.value, indent: indent, depth: depth + 1, into: &bytes)
            }
            newline(indent: indent, depth: depth, into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        default:
            write(value, into: &bytes)
        }
    }

    private static func newline(indent: Int, depth: Int, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * depth))
    }

    private static func append(_ text: StaticString, into bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private static func writeInt(_ i: Int, into bytes: inout [UInt8]) {
        if i < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = i.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    private static func writeDouble(_ d: Double, into bytes: inout [UInt8]) {
        guard d.isFinite else { return append("null", into: &bytes) }
        if d == d.rounded(), d.magnitude < 1e16 {
            if d == 0, d.sign == .minus { return append("-0", into: &bytes) }
            return writeInt(Int(d), into: &bytes)
        }
        bytes.append(contentsOf: d.description.utf8)
    }

    private static func writeString(_ s: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        if s.utf8.withContiguousStorageIfAvailable({ escape($0, into: &bytes) }) == nil {
            var copy = s
            copy.withUTF8 { escape($0, into: &bytes) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `source` with `"`, `\` and control characters escaped the way jq escapes them.
    private static func escape(_ source: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        var runStart = 0
        for i in 0..<source.count {
            let c = source[i]
            guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c == 0x7F else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<i]))
            runStart = i + 1
            bytes.append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(c)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                hex.withUTF8Buffer { digits in
                    bytes.append(digits[Int(c >> 4)])
                    bytes.append(digits[Int(c & 0xF)])
                }
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<source.count]))
    }
}
