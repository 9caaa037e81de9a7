public import ReformSDK

/// A filter condition over a record: `price >= 100 and city in ['shanghai', 'beijing']`.
///
/// Operands are record paths (`price`, `address.city`, `tags[0]`), numbers, `'strings'` or
/// `"strings"`, `true`, `false`, `null` and lists `[a, b]`. Operators: `==` `!=` `<` `<=` `>` `>=`,
/// `in`, `contains`, `startswith`, `endswith`, `and`, `or`, `not`, parentheses. A path alone is
/// true unless it is missing, null or false. Ordering compares numbers with numbers and strings with
/// strings; comparing other kinds is false, never an error.
public struct Condition: Sendable, CustomStringConvertible {
    indirect enum Node: Sendable {
        case path(ValuePath)
        case literal(Value)
        case list([Node])
        case not(Node)
        case and(Node, Node)
        case or(Node, Node)
        case compare(Node, Operator, Node)
    }

    enum Operator: String, Sendable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case `in`, contains, startswith, endswith
    }

    let root: Node
    /// The condition as written.
    public let description: String

    /// Parses a condition; the error's column is 1-based within `text`.
    public init(parsing text: String) throws(ValuePathError) {
        description = text
        var parser = ConditionParser(text: text)
        root = try parser.parseAll()
    }

    private init(root: Node, description: String) {
        self.root = root
        self.description = description
    }

    /// The record paths the condition reads.
    public var paths: [ValuePath] {
        var out: [ValuePath] = []
        func walk(_ node: Node) {
            switch node {
            case .path(let p): out.append(p)
            case .literal: break
            case .list(let items): items.forEach(walk)
            case .not(let n): walk(n)
            case .and(let a, let b), .or(let a, let b), .compare(let a, _, let b):
                walk(a)
                walk(b)
            }
        }
        walk(root)
        return out
    }

    /// The same condition with each path's first key replaced by `rename(key)` where that is not nil.
    public func renamingFirstKeys(_ rename: (String) -> String?) -> Condition {
        func walk(_ node: Node) -> Node {
            switch node {
            case .path(let p):
                guard case .key(let k)? = p.components.first, let new = rename(k) else { return node }
                return .path(ValuePath([.key(new)] + p.components.dropFirst()))
            case .literal: return node
            case .list(let items): return .list(items.map(walk))
            case .not(let n): return .not(walk(n))
            case .and(let a, let b): return .and(walk(a), walk(b))
            case .or(let a, let b): return .or(walk(a), walk(b))
            case .compare(let a, let op, let b): return .compare(walk(a), op, walk(b))
            }
        }
        return Condition(root: walk(root), description: description)
    }

    /// Whether the condition holds for `record`.
    public func holds(for record: Value) -> Bool {
        holds { path in record[path: path] ?? .null }
    }

    /// Whether the condition holds for a record whose value at each path `lookup` gives (null when
    /// missing): the compiled chain's records, which are not built as values.
    func holds(lookup: (ValuePath) -> Value) -> Bool {
        Condition.holds(root, lookup: lookup)
    }

    /// Whether the part `node` of a condition holds, reading paths through `lookup`.
    static func holds(_ node: Node, lookup: (ValuePath) -> Value) -> Bool {
        truthy(evaluate(node, lookup))
    }

    private static func evaluate(_ node: Node, _ lookup: (ValuePath) -> Value) -> Value {
        switch node {
        case .path(let p): return lookup(p)
        case .literal(let v): return v
        case .list(let items): return .array(items.map { evaluate($0, lookup) })
        case .not(let n): return .bool(!Condition.truthy(evaluate(n, lookup)))
        case .and(let a, let b):
            return .bool(Condition.truthy(evaluate(a, lookup)) && Condition.truthy(evaluate(b, lookup)))
        case .or(let a, let b):
            return .bool(Condition.truthy(evaluate(a, lookup)) || Condition.truthy(evaluate(b, lookup)))
        case .compare(let a, let op, let b):
            return .bool(Condition.compare(evaluate(a, lookup), op, evaluate(b, lookup)))
        }
    }

    /// Whether a value counts as true: anything but `null` and `false`.
    static func truthy(_ value: Value) -> Bool {
        switch value {
        case .null, .bool(false): false
        default: true
        }
    }

    /// Whether `l op r` holds.
    static func compare(_ l: Value, _ op: Operator, _ r: Value) -> Bool {
        switch op {
        case .equal: return l == r
        case .notEqual: return l != r
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let order = ordering(l, r) else { return false }
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .in:
            if case .array(let items) = r { return items.contains(l) }
            if case .string(let s) = r, case .string(let sub) = l { return s.contains(sub) }
            if case .object(let o) = r, case .string(let key) = l { return o[key] != nil }
            return false
        case .contains:
            return compare(r, .in, l)
        case .startswith:
            guard case .string(let s) = l, case .string(let p) = r else { return false }
            return s.hasPrefix(p)
        case .endswith:
            guard case .string(let s) = l, case .string(let p) = r else { return false }
            return s.hasSuffix(p)
        }
    }

    /// -1, 0 or 1 for two numbers or two strings; `nil` for other pairs.
    static func ordering(_ l: Value, _ r: Value) -> Int? {
        switch (l, r) {
        case (.int(let a), .int(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.string(let a), .string(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        default:
            guard let a = l.doubleValue, let b = r.doubleValue else { return nil }
            return a < b ? -1 : (a == b ? 0 : 1)
        }
    }
}

/// Recursive-descent parser for ``Condition``: or → and → not → comparison → operand.
struct ConditionParser {
    private let chars: [Unicode.Scalar]
    private var i = 0

    init(text: String) {
        chars = Array(text.unicodeScalars)
    }

    mutating func parseAll() throws(ValuePathError) -> Condition.Node {
        skipSpaces()
        guard i < chars.count else { throw error("empty condition; write one like 'price > 100'") }
        let node = try parseOr()
        skipSpaces()
        guard i >= chars.count else { throw error("unexpected '\(rest())'; expected 'and', 'or' or the end") }
        return node
    }

    private mutating func parseOr() throws(ValuePathError) -> Condition.Node {
        var node = try parseAnd()
        while keyword("or") { node = .or(node, try parseAnd()) }
        return node
    }

    private mutating func parseAnd() throws(ValuePathError) -> Condition.Node {
        var node = try parseNot()
        while keyword("and") { node = .and(node, try parseNot()) }
        return node
    }

    private mutating func parseNot() throws(ValuePathError) -> Condition.Node {
        if keyword("not") { return .not(try parseNot()) }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(ValuePathError) -> Condition.Node {
        let left = try parseOperand()
        skipSpaces()
        for symbol in ["==", "!=", "<=", ">=", "<", ">"] where lookingAt(symbol) {
            i += symbol.unicodeScalars.count
            guard let op = Condition.Operator(rawValue: symbol) else { break }
            return .compare(left, op, try parseOperand())
        }
        if lookingAt("=") && !lookingAt("==") { throw error("'=' is not a comparison; write '=='") }
        for word in ["in", "contains", "startswith", "endswith"] where keyword(word) {
            guard let op = Condition.Operator(rawValue: word) else { break }
            return .compare(left, op, try parseOperand())
        }
        return left
    }

    private mutating func parseOperand() throws(ValuePathError) -> Condition.Node {
        skipSpaces()
        guard i < chars.count else { throw error("the condition ends where a value or field was expected") }
        let c = chars[i]
        if c == "(" {
            i += 1
            let inner = try parseOr()
            skipSpaces()
            guard i < chars.count, chars[i] == ")" else { throw error("expected ')'") }
            i += 1
            return inner
        }
        if c == "[" {
            i += 1
            var items: [Condition.Node] = []
            skipSpaces()
            if i < chars.count, chars[i] == "]" {
                i += 1
                return .list(items)
            }
            while true {
                items.append(try parseOperand())
                skipSpaces()
                guard i < chars.count else { throw error("expected ',' or ']' in the list") }
                if chars[i] == "]" {
                    i += 1
                    return .list(items)
                }
                guard chars[i] == "," else { throw error("expected ',' or ']' in the list") }
                i += 1
            }
        }
        if c == "'" || c == "\"" { return .literal(.string(try parseString(quote: c))) }
        if c == "-" || c == "+" || ("0"..."9").contains(c) { return .literal(try parseNumber()) }
        let start = i
        var word = ""
        var bracketDepth = 0
        while i < chars.count {
            let ch = chars[i]
            if ch == "[" {
                bracketDepth += 1
            } else if ch == "]" {
                guard bracketDepth > 0 else { break }
                bracketDepth -= 1
            } else if bracketDepth == 0
                && !(ch.properties.isAlphabetic || ("0"..."9").contains(ch) || ch == "_" || ch == "." || ch == "-" || ch == "\"")
            {
                break
            }
            word.unicodeScalars.append(ch)
            i += 1
        }
        switch word {
        case "": throw error("expected a field, a value or '('")
        case "true": return .literal(.bool(true))
        case "false": return .literal(.bool(false))
        case "null": return .literal(.null)
        case "and", "or", "in", "contains", "startswith", "endswith":
            i = start
            throw error("expected a field or a value before '\(word)'")
        default:
            do { return .path(try ValuePath(parsing: word)) } catch {
                throw ValuePathError(column: start + error.column, message: error.message)
            }
        }
    }

    private mutating func parseString(quote: Unicode.Scalar) throws(ValuePathError) -> String {
        let start = i
        i += 1
        var out = ""
        while i < chars.count, chars[i] != quote {
            if chars[i] == "\\", i + 1 < chars.count { i += 1 }
            out.unicodeScalars.append(chars[i])
            i += 1
        }
        guard i < chars.count else {
            i = start
            throw error("unterminated string")
        }
        i += 1
        return out
    }

    private mutating func parseNumber() throws(ValuePathError) -> Value {
        let start = i
        var text = ""
        while i < chars.count, "+-0123456789.eE".unicodeScalars.contains(chars[i]) {
            text.unicodeScalars.append(chars[i])
            i += 1
        }
        if let n = Int(text) { return .int(n) }
        if let d = Double(text), d.isFinite { return .double(d) }
        i = start
        throw error("'\(text)' is not a number")
    }

    private mutating func keyword(_ word: String) -> Bool {
        skipSpaces()
        guard lookingAt(word) else { return false }
        let end = i + word.unicodeScalars.count
        if end < chars.count, chars[end].properties.isAlphabetic || chars[end] == "_" { return false }
        i = end
        return true
    }

    private func lookingAt(_ text: String) -> Bool {
        var j = i
        for scalar in text.unicodeScalars {
            guard j < chars.count, chars[j] == scalar else { return false }
            j += 1
        }
        return true
    }

    private mutating func skipSpaces() {
        while i < chars.count, chars[i] == " " || chars[i] == "\t" || chars[i] == "\n" { i += 1 }
    }

    private func rest() -> String { String(String.UnicodeScalarView(chars[i...])) }

    private func error(_ message: String) -> ValuePathError {
        ValuePathError(column: i + 1, message: message)
    }
}
