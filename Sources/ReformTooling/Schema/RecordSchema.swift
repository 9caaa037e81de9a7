public import ReformSDK

/// The JSON Schema (draft 2020-12) of records as they came: what `reform schema --records` prints
/// for a manager's landed records, the way Airbyte's Connector Builder shows a stream's detected
/// schema and dlt exports the schema it inferred.
///
/// Every record seen widens the schema, never narrows it: a key is a property with every type its
/// values had (`integer` and `number` meet as `number`; a null adds `"null"`), nested objects are
/// objects with properties of their own, and an array's `items` is the schema of all its elements
/// together. A key is `required` when every object at that place had it, so a key some records lack
/// is optional. A string type gets a `format` when all its values had one (`date-time`, `date`).
public struct RecordSchema: Sendable {
    /// The schema of every value seen at one place.
    private struct Node: Sendable {
        var null = false
        var boolean = false
        var integer = false
        var number = false
        var string = false
        /// Whether every string seen is an RFC 3339 date-time, or a date (`nil` before the first).
        var dateTimes: Bool?
        var dates: Bool?
        /// Objects seen here, and per key the values it had and in how many of them.
        var objects = 0
        var properties: [String: Property] = [:]
        /// The order keys first came in.
        var order: [String] = []
        /// Arrays seen here, and the node of all their elements (one at most: a struct cannot
        /// hold itself but in storage of its own).
        var arrays = 0
        var items: [Node] = []

        mutating func add(_ value: Value) {
            switch value {
            case .null: null = true
            case .bool: boolean = true
            case .int: integer = true
            case .double: number = true
            case .string(let text):
                string = true
                dateTimes = (dateTimes ?? true) && RecordSchema.isDateTime(text)
                dates = (dates ?? true) && RecordSchema.isDate(text)
            case .array(let elements):
                arrays += 1
                if items.isEmpty { items = [Node()] }
                for element in elements { items[0].add(element) }
            case .object(let object):
                objects += 1
                for member in object.members {
                    if properties[member.key] == nil { order.append(member.key) }
                    properties[member.key, default: Property()].add(member.value)
                }
            }
        }

        /// The schema, as a JSON value.
        var schema: Value {
            var types: [String] = []
            if objects > 0 { types.append("object") }
            if arrays > 0 { types.append("array") }
            if string { types.append("string") }
            if number { types.append("number") } else if integer { types.append("integer") }
            if boolean { types.append("boolean") }
            if null { types.append("null") }
            var schema = Object()
            switch types.count {
            case 0: break  // only in an array never holding anything: any value
            case 1: schema["type"] = .string(types[0])
            default: schema["type"] = .array(types.map(Value.string))
            }
            if string, dateTimes == true {
                schema["format"] = "date-time"
            } else if string, dates == true {
                schema["format"] = "date"
            }
            if objects > 0 {
                var members = Object()
                for key in order {
                    if let property = properties[key] { members[key] = property.values.schema }
                }
                schema["properties"] = .object(members)
                let required = order.filter { properties[$0]?.count == objects }
                if !required.isEmpty { schema["required"] = .array(required.map(Value.string)) }
            }
            if let items = items.first, !items.isEmpty { schema["items"] = items.schema }
            return .object(schema)
        }

        /// Whether no value was seen here.
        var isEmpty: Bool { !(null || boolean || integer || number || string) && objects == 0 && arrays == 0 }
    }

    /// One key of the objects at a place: its values, and how many of the objects had it.
    private struct Property: Sendable {
        var values = Node()
        var count = 0

        mutating func add(_ value: Value) {
            values.add(value)
            count += 1
        }
    }

    private var root = Node()
    /// How many records were added.
    public private(set) var records = 0

    /// An empty schema, before any record.
    public init() {}

    /// Widens the schema to take `record`.
    public mutating func add(_ record: Value) {
        records += 1
        root.add(record)
    }

    /// The schema as a JSON value, without `$schema` and title (a part of a larger document).
    public var schema: Value { root.schema }

    /// The schema as a JSON value, titled `title`: a draft 2020-12 document.
    public func document(title: String) -> Value {
        var document: Object = ["$schema": .string(RecordSchema.draft), "title": .string(title)]
        if case .object(let schema) = root.schema {
            for member in schema.members { document[member.key] = member.value }
        }
        return .object(document)
    }

    /// The JSON Schema dialect the documents declare.
    public static let draft = "https://json-schema.org/draft/2020-12/schema"

    /// Whether `text` is an RFC 3339 date-time (`2026-01-01T19:05:03Z`, fractions and offsets too).
    static func isDateTime(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, isDate(bytes[0..<10]), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            digits(bytes[11..<13]), bytes[13] == UInt8(ascii: ":"), digits(bytes[14..<16]), bytes[16] == UInt8(ascii: ":"),
            digits(bytes[17..<19])
        else { return false }
        var rest = bytes[19...]
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let fraction = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard !fraction.isEmpty else { return false }
            rest = rest.dropFirst(fraction.count)
        }
        if rest.count == 1, rest.first == UInt8(ascii: "Z") || rest.first == UInt8(ascii: "z") { return true }
        guard rest.count == 6, let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return false }
        let offset = Array(rest)
        return digits(offset[1..<3]) && offset[3] == UInt8(ascii: ":") && digits(offset[4..<6])
    }

    /// Whether `text` is a full date (`2026-01-31`).
    static func isDate(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 10 && isDate(bytes[0..<10])
    }

    private static func isDate(_ bytes: ArraySlice<UInt8>) -> Bool {
        let start = bytes.startIndex
        guard bytes.count == 10, digits(bytes[start..<(start + 4)]), bytes[start + 4] == UInt8(ascii: "-"),
            digits(bytes[(start + 5)..<(start + 7)]), bytes[start + 7] == UInt8(ascii: "-"), digits(bytes[(start + 8)..<(start + 10)])
        else { return false }
        let month = Int(bytes[start + 5] - 48) * 10 + Int(bytes[start + 6] - 48)
        let day = Int(bytes[start + 8] - 48) * 10 + Int(bytes[start + 9] - 48)
        return (1...12).contains(month) && (1...31).contains(day)
    }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
