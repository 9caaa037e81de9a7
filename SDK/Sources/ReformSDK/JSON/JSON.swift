/// Reading and writing JSON text (RFC 8259) as ``Value``s.
///
/// Parsing is strict: no comments, trailing commas, leading zeros, unescaped control characters or
/// invalid UTF-8. Integral numbers that fit in 64 bits become ``Value/int(_:)``; every other number
/// becomes ``Value/double(_:)``, correctly rounded (`-0` is the double `-0.0`, so it prints back
/// as `-0`; numbers beyond the double range become ±`Double.greatestFiniteMagnitude`, as in jq).
/// A duplicate key keeps its first position and takes the last value, as `jq` does. A lone
/// surrogate `\u` escape is accepted as U+FFFD (see ``JSONParser``). Writing produces the bytes
/// `jq -c` (1.6) prints.
///
/// For many documents in a row, keep one ``JSONParser``: it reuses its scratch storage and a
/// cache of recently seen keys.
public enum JSON {
    /// Parses one JSON document from raw UTF-8 bytes; whitespace may surround it.
    public static func parse(_ bytes: UnsafeRawBufferPointer, limits: JSONLimits = .init()) throws(JSONError)
        -> Value
    {
        var parser = JSONParser(limits: limits)
        return try parser.parse(bytes)
    }

    /// Parses one JSON document from an array of UTF-8 bytes.
    public static func parse(_ bytes: [UInt8], limits: JSONLimits = .init()) throws(JSONError) -> Value {
        var parser = JSONParser(limits: limits)
        return try bytes.withUnsafeBytes { raw in Result { () throws(JSONError) in try parser.parse(raw) } }.get()
    }

    /// Parses one JSON document from a string.
    public static func parse(_ text: String, limits: JSONLimits = .init()) throws(JSONError) -> Value {
        var parser = JSONParser(limits: limits)
        var text = text
        return try text.withUTF8 { utf8 in
            Result { () throws(JSONError) in try parser.parse(UnsafeRawBufferPointer(utf8)) }
        }.get()
    }

    /// Parses several documents one after another, separated by optional whitespace (NDJSON, or a
    /// multi-document stream such as `1 [2] {"a":3}`); empty input gives no documents.
    public static func parseSequence(_ bytes: UnsafeRawBufferPointer, limits: JSONLimits = .init())
        throws(JSONError) -> [Value]
    {
        var parser = JSONParser(limits: limits)
        return try parser.parseSequence(bytes)
    }

    /// Parses several whitespace-separated documents from an array of UTF-8 bytes.
    public static func parseSequence(_ bytes: [UInt8], limits: JSONLimits = .init()) throws(JSONError)
        -> [Value]
    {
        var parser = JSONParser(limits: limits)
        return try bytes.withUnsafeBytes { raw in Result { () throws(JSONError) in try parser.parseSequence(raw) } }
            .get()
    }

    /// Parses several whitespace-separated documents from a string.
    public static func parseSequence(_ text: String, limits: JSONLimits = .init()) throws(JSONError) -> [Value] {
        var parser = JSONParser(limits: limits)
        var text = text
        return try text.withUTF8 { utf8 in
            Result { () throws(JSONError) in try parser.parseSequence(UnsafeRawBufferPointer(utf8)) }
        }.get()
    }
}
