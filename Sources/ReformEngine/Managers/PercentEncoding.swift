/// URL percent-encoding of query and path values (RFC 3986 unreserved characters kept).
enum PercentEncoding {
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }

    static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let b = utf8.first {
            utf8 = utf8.dropFirst()
            if b == UInt8(ascii: "%"), utf8.count >= 2, let v = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
