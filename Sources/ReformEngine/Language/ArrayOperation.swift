public import ReformSDK

/// What a mapping rule makes of an array (`labels[].name`, `array: join`): the array itself, or
/// each element's field, then all of them, how many, joined, the first or the last.
public struct ArrayOperation: Sendable, Equatable {
    /// How the elements become one value.
    public enum Reduction: String, Sendable, CaseIterable {
        /// The list of (the fields of) the elements.
        case list
        /// How many elements there are.
        case count
        /// The elements' text joined with a separator (`", "` by default).
        case join
        /// The first element.
        case first
        /// The last element.
        case last
    }

    /// The field read from each element (`name` of `labels[].name`); `nil`: the element itself.
    public let each: ValuePath?
    /// How the elements become one value.
    public let reduction: Reduction
    /// What `join` puts between elements.
    public let separator: String

    /// An operation over each element's `each` field (or the element), reduced by `reduction`.
    public init(each: ValuePath?, reduction: Reduction, separator: String = ", ") {
        self.each = each
        self.reduction = reduction
        self.separator = separator
    }

    /// The operation applied to `value`; `nil` when `value` is missing or null (the rule's
    /// `optional` and `default` then apply), an error when it is not an array.
    func apply(_ value: Value?, key: String) throws(RecordError) -> Value? {
        guard let value, !value.isNull else { return nil }
        guard case .array(let elements) = value else {
            throw RecordError(
                code: "not-an-array", message: "key '\(key)' reads an array (\(reduction.rawValue)), but the record holds \(value.kindName)"
            )
        }
        // Elements without the field are left out (as jq's `.labels[].name?` does).
        let items = each.map { path in elements.compactMap { $0[path: path].flatMap { $0.isNull ? nil : $0 } } } ?? elements
        switch reduction {
        case .list: return .array(items)
        case .count: return .int(items.count)
        case .join: return .string(items.map(\.plainText).joined(separator: separator))
        case .first: return items.first ?? .null
        case .last: return items.last ?? .null
        }
    }

    /// Splits `labels[].name` into the array's path text and the element field's text (`nil`
    /// when the text has no `[]`).
    static func split(_ text: String) -> (array: String, each: String?)? {
        guard let range = text.firstRange(of: "[]") else { return nil }
        let array = String(text[..<range.lowerBound])
        var rest = text[range.upperBound...]
        if rest.hasPrefix(".") { rest = rest.dropFirst() }
        return (array, rest.isEmpty ? nil : String(rest))
    }
}
