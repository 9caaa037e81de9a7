/// Case-insensitive comparisons of ASCII text (header names, tokens such as `close` or `json`)
/// on the UTF-8 bytes, without making lowercased copies: the response path does several per
/// response.
package enum ASCIICase {
    /// Whether `text` equals `lowercase` (given in lower case), ignoring ASCII case.
    package static func equals(_ text: String, _ lowercase: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard text.utf8.count == needle.count else { return false }
        return zip(text.utf8, needle).allSatisfy { lower($0) == $1 }
    }

    /// Whether `text` contains `lowercase` (given in lower case), ignoring ASCII case.
    package static func contains(_ text: String, _ lowercase: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        var text = text
        return text.withUTF8 { haystack in
            guard needle.count <= haystack.count else { return false }
            guard !needle.isEmpty else { return true }
            return (0...(haystack.count - needle.count)).contains { start in
                (0..<needle.count).allSatisfy { lower(haystack[start + $0]) == needle[$0] }
            }
        }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
