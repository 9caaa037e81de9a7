import Foundation
import ReformSDK

/// Reads the yaml-test-suite's `in.json` files: zero or more JSON documents separated by whitespace.
///
/// Uses Foundation's `JSONSerialization` until `JSON.parseSequence` lands in ReformSDK.
enum JSONDocuments {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Every JSON document in `text`, as ``Value``s.
    static func parse(_ text: String) throws -> [Value] {
        try split(Array(text.utf8)).map { bytes in
            let object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            return try value(of: object)
        }
    }

    /// The byte ranges of each top-level document.
    private static func split(_ bytes: [UInt8]) throws -> [ArraySlice<UInt8>] {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        let opening: Set<UInt8> = [UInt8(ascii: "{"), UInt8(ascii: "[")]
        let closing: Set<UInt8> = [UInt8(ascii: "}"), UInt8(ascii: "]")]
        var documents: [ArraySlice<UInt8>] = []
        var i = 0
        while true {
            while i < bytes.count, isSpace(bytes[i]) { i += 1 }
            guard i < bytes.count else { return documents }
            let start = i
            if opening.contains(bytes[i]) || bytes[i] == quote {
                var depth = 0
                var inString = false
                repeat {
                    let b = bytes[i]
                    if inString {
                        if b == backslash { i += 1 } else if b == quote { inString = false }
                    } else if b == quote {
                        inString = true
                    } else if opening.contains(b) {
                        depth += 1
                    } else if closing.contains(b) {
                        depth -= 1
                    }
                    i += 1
                } while i < bytes.count && (depth > 0 || inString)
            } else {
                while i < bytes.count, !isSpace(bytes[i]), !opening.contains(bytes[i]), bytes[i] != quote { i += 1 }
            }
            documents.append(bytes[start..<i])
        }
    }

    private static func value(of object: Any) throws -> Value {
        switch object {
        case is NSNull:
            return .null
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            if let int = Int(exactly: number), !String(describing: number).contains(".") { return .int(int) }
            return .double(number.doubleValue)
        case let string as String:
            return .string(string)
        case let array as [Any]:
            return .array(try array.map(value(of:)))
        case let dictionary as [String: Any]:
            var result = Object()
            for (key, element) in dictionary { result[key] = try value(of: element) }
            return .object(result)
        default:
            throw Malformed(description: "unexpected JSON value \(object)")
        }
    }
}
