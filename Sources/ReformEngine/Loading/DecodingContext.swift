package import ReformSDK
package import ReformYAML

/// Collects every diagnostic while a pipeline is decoded, and reads typed values out of nodes.
///
/// Readers never stop at the first problem: they record a diagnostic and return `nil`, so that one
/// `reform validate` reports everything wrong with a file.
package final class DecodingContext {
    package let file: String
    package let environment: [String: String]
    /// Each diagnostic once, with how many more times the same one came up at its place.
    private var collected: [(diagnostic: Diagnostic, repeats: Int)] = []
    /// The places of nodes the document holds more than once: the contents of anchors that
    /// aliases or merge keys copied (each copy keeps the anchor's places). Only a diagnostic at
    /// one of them can be the same mistake seen again through another copy.
    private var copiedLocations: Set<SourceLocation> = []

    package init(file: String, environment: [String: String]) {
        self.file = file
        self.environment = environment
    }

    /// Notes the places of `root`'s nodes that it holds more than once (``copiedLocations``);
    /// call it before decoding `root`.
    package func noteCopies(in root: YAMLNode) {
        var seen: Set<SourceLocation> = []
        var pending = [root]
        while let node = pending.popLast() {
            if !seen.insert(node.location).inserted { copiedLocations.insert(node.location) }
            switch node.content {
            case .scalar: break
            case .sequence(let items): pending += items
            case .mapping(let pairs):
                for pair in pairs {
                    pending.append(pair.key)
                    pending.append(pair.value)
                }
            }
        }
    }

    /// Every diagnostic, in the order found. A node under a YAML anchor is decoded once per alias
    /// that uses it, each copy at the anchor's place, so the same mistake comes up once per use (for
    /// a different owner: "in manager 'b'"): it is reported once, saying how many more uses share
    /// it. Two mistakes at one place that is not copied (`pick: [x, y]`, neither carried) stay two.
    package var diagnostics: [Diagnostic] {
        collected.map { entry in
            guard entry.repeats > 0 else { return entry.diagnostic }
            let diagnostic = entry.diagnostic
            return Diagnostic(
                file: diagnostic.file, location: diagnostic.location, severity: diagnostic.severity,
                message: diagnostic.message + " (and \(entry.repeats) more like it here: YAML aliases use this node more than once)")
        }
    }

    package var hasErrors: Bool { collected.contains { $0.diagnostic.severity == .error } }

    package func error(_ message: String, at location: SourceLocation) {
        add(Diagnostic(file: file, location: location, message: message))
    }

    package func warning(_ message: String, at location: SourceLocation) {
        add(Diagnostic(file: file, location: location, severity: .warning, message: message))
    }

    /// Adds `diagnostic`, or — at a copied place — counts it as a repeat of one there that says
    /// the same but for the names it quotes (the owner a copy of an anchored node was decoded for).
    private func add(_ diagnostic: Diagnostic) {
        guard copiedLocations.contains(diagnostic.location) else {
            collected.append((diagnostic, 0))
            return
        }
        let shape = Self.shape(of: diagnostic.message)
        if let index = collected.firstIndex(where: {
            $0.diagnostic.location == diagnostic.location && $0.diagnostic.severity == diagnostic.severity
                && Self.shape(of: $0.diagnostic.message) == shape
        }) {
            collected[index].repeats += 1
        } else {
            collected.append((diagnostic, 0))
        }
    }

    /// A message with each quoted name ('…') emptied.
    private static func shape(of message: String) -> String {
        var out = ""
        var quoted = false
        for character in message {
            if character == "'" {
                quoted.toggle()
                out.append(character)
            } else if !quoted {
                out.append(character)
            }
        }
        return out
    }

    /// The location of the `offset`-th (1-based) character inside a scalar, accounting for a quote.
    package func location(in node: YAMLNode, column offset: Int) -> SourceLocation {
        var shift = 0
        if case .scalar(let s) = node.content, s.style == .singleQuoted || s.style == .doubleQuoted { shift = 1 }
        return SourceLocation(line: node.location.line, column: node.location.column + shift + offset - 1)
    }

    // MARK: Mappings

    /// A mapping's entries by key, after reporting unknown keys (with suggestions) and a wrong kind.
    package func mapping(_ node: YAMLNode, _ what: String, allowed: [String]?) -> Mapping? {
        guard case .mapping(let pairs) = node.content else {
            error("\(what) must be a mapping, not \(node.kindDescription)", at: node.location)
            return nil
        }
        var entries: [Mapping.Entry] = []
        for pair in pairs {
            guard case .scalar(let key) = pair.key.content else {
                error("keys in \(what) must be plain names, not \(pair.key.kindDescription)", at: pair.key.location)
                continue
            }
            if let allowed, !allowed.contains(key.text) {
                error(
                    "unknown key '\(key.text)' in \(what)\(Suggestions.hint(for: key.text, in: allowed))"
                        + (Suggestions.closest(to: key.text, in: allowed) == nil
                            ? "; expected one of: \(allowed.joined(separator: ", "))" : ""),
                    at: pair.key.location)
                continue
            }
            entries.append(Mapping.Entry(key: key.text, keyLocation: pair.key.location, value: pair.value))
        }
        return Mapping(node: node, entries: entries)
    }

    /// Each entry of the mapping `node` with its value decoded by `decode`, in order (a step's
    /// `{ key: value }` argument); `nil` when `node` is not a mapping or a value does not decode.
    /// Every entry is decoded, so each bad value is reported, not only the first.
    package func keyed<Value>(_ node: YAMLNode, _ what: String, _ decode: (Mapping.Entry) -> Value?) -> [(key: String, value: Value)]? {
        guard let mapping = mapping(node, what, allowed: nil) else { return nil }
        let decoded = mapping.entries.compactMap { entry in decode(entry).map { (key: entry.key, value: $0) } }
        return decoded.count == mapping.entries.count ? decoded : nil
    }

    /// The mapping at `key` of `parent`, if present and a mapping.
    package func requireKey(_ key: String, in mapping: Mapping, _ what: String) -> YAMLNode? {
        guard let node = mapping[key] else {
            error("\(what) needs '\(key)'", at: mapping.node.location)
            return nil
        }
        return node
    }

    // MARK: Scalars

    /// A string, with `${VAR}` references resolved from the environment.
    package func string(_ node: YAMLNode, _ what: String) -> String? {
        guard case .scalar(let scalar) = node.content else {
            error("\(what) must be a string, not \(node.kindDescription)", at: node.location)
            return nil
        }
        return interpolate(scalar.text, node: node, what)
    }

    /// A string kept with its `${VAR}` references unresolved (service headers and auth).
    package func template(_ node: YAMLNode, _ what: String) -> InterpolatedString? {
        guard case .scalar(let scalar) = node.content else {
            error("\(what) must be a string, not \(node.kindDescription)", at: node.location)
            return nil
        }
        do {
            return try InterpolatedString(parsing: scalar.text)
        } catch {
            self.error(error.message, at: location(in: node, column: error.column))
            return nil
        }
    }

    package func interpolate(_ text: String, node: YAMLNode, _ what: String) -> String? {
        guard text.contains("$") else { return text }
        do {
            return try InterpolatedString(parsing: text).resolve(in: environment)
        } catch {
            self.error(error.message + " (in \(what))", at: location(in: node, column: error.column))
            return nil
        }
    }

    /// A whole number within `range`.
    package func int(_ node: YAMLNode, _ what: String, in range: ClosedRange<Int> = Int.min...Int.max) -> Int? {
        let value = scalarValue(node)
        guard case .int(let i)? = value else {
            error("\(what) must be a whole number, not \(node.kindDescription)", at: node.location)
            return nil
        }
        guard range.contains(i) else {
            error("\(what) must be between \(range.lowerBound) and \(range.upperBound), not \(i)", at: node.location)
            return nil
        }
        return i
    }

    /// A number.
    package func number(_ node: YAMLNode, _ what: String) -> Double? {
        guard let d = scalarValue(node)?.doubleValue else {
            error("\(what) must be a number, not \(node.kindDescription)", at: node.location)
            return nil
        }
        return d
    }

    /// `true` or `false`.
    package func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        guard case .bool(let b)? = scalarValue(node) else {
            error("\(what) must be true or false, not \(node.kindDescription)", at: node.location)
            return nil
        }
        return b
    }

    /// A duration in seconds: a number, or text like `10s`, `200ms`, `2m`.
    /// The longest duration a pipeline may declare (30 days): a retry wait, timeout or budget
    /// longer than that is a mistake, and far longer ones overflowed at run time (audit D8).
    package static let longestDuration: Double = 30 * 86_400

    /// A duration that must be above zero (a timeout), or nil with an error.
    package func positiveDuration(_ node: YAMLNode, _ what: String) -> Double? {
        guard let seconds = duration(node, what) else { return nil }
        guard seconds > 0 else {
            error("\(what) must be longer than 0 s: a request cannot finish in no time", at: node.location)
            return nil
        }
        return seconds
    }

    package func duration(_ node: YAMLNode, _ what: String) -> Double? {
        func checked(_ seconds: Double) -> Double? {
            guard seconds <= DecodingContext.longestDuration else {
                error(
                    "\(what) is longer than the longest duration accepted, 30 days (720h); give a shorter one",
                    at: node.location)
                return nil
            }
            return seconds
        }
        if let d = scalarValue(node)?.doubleValue, d >= 0 { return checked(d) }
        guard case .scalar(let s) = node.content else {
            error("\(what) must be a duration like 10s or 200ms, not \(node.kindDescription)", at: node.location)
            return nil
        }
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for (unit, factor) in units where s.text.hasSuffix(unit) {
            if let n = Double(s.text.dropLast(unit.count)), n >= 0, n.isFinite { return checked(n * factor) }
        }
        error("\(what) must be a duration like 10s, 200ms or 2m, not '\(s.text)'", at: node.location)
        return nil
    }

    /// One of an enumeration's raw values, with a suggestion for a near miss.
    package func choice<E: RawRepresentable & CaseIterable>(_ node: YAMLNode, _ what: String, as type: E.Type) -> E?
    where E.RawValue == String {
        guard let text = string(node, what) else { return nil }
        if let value = E(rawValue: text) { return value }
        let names = E.allCases.map(\.rawValue).joined(separator: ", ")
        let hint = Suggestions.hint(for: text, in: E.allCases.map(\.rawValue))
        error(
            "unknown \(what) '\(text)'" + (hint.isEmpty ? "; expected one of: \(names)" : "\(hint) (expected one of: \(names))"),
            at: node.location)
        return nil
    }

    /// A string or a list of strings.
    package func stringList(_ node: YAMLNode, _ what: String) -> [String]? {
        switch node.content {
        case .scalar: return string(node, what).map { [$0] }
        case .sequence(let items):
            let strings = items.compactMap { string($0, "each entry of \(what)") }
            return strings.count == items.count ? strings : nil
        case .mapping:
            error("\(what) must be a name or a list of names, not a mapping", at: node.location)
            return nil
        }
    }

    /// A string template over a record, like `{name} ({id})`.
    package func recordTemplate(_ node: YAMLNode, _ what: String) -> Template? {
        guard let text = string(node, what) else { return nil }
        do {
            return try Template(parsing: text)
        } catch {
            self.error("\(what): \(error.message)", at: location(in: node, column: error.column))
            return nil
        }
    }

    /// A record path like `data.list`.
    package func path(_ node: YAMLNode, _ what: String) -> ValuePath? {
        guard let text = string(node, what) else { return nil }
        do {
            return try ValuePath(parsing: text)
        } catch {
            self.error("\(what): \(error.message)", at: location(in: node, column: error.column))
            return nil
        }
    }

    /// A record path or a list of them (`id`, `[id, loc.city]`), each error at its own entry.
    package func pathList(_ node: YAMLNode, _ what: String) -> [ValuePath]? {
        if case .sequence(let items) = node.content {
            let paths = items.compactMap { path($0, "each entry of \(what)") }
            return paths.count == items.count ? paths : nil
        }
        guard stringList(node, what) != nil else { return nil }
        return path(node, what).map { [$0] }
    }

    /// Any value, with `${VAR}` references in strings resolved.
    package func value(_ node: YAMLNode, _ what: String) -> Value? {
        switch node.content {
        case .scalar(let s):
            if case .string(let text) = s.value, text.contains("$") {
                return interpolate(text, node: node, what).map(Value.string)
            }
            return s.value
        case .sequence(let items):
            var out: [Value] = []
            for item in items {
                guard let v = value(item, what) else { return nil }
                out.append(v)
            }
            return .array(out)
        case .mapping(let pairs):
            var object = Object()
            for pair in pairs {
                guard case .scalar(let key) = pair.key.content else {
                    error("keys in \(what) must be plain names", at: pair.key.location)
                    return nil
                }
                guard let v = value(pair.value, what) else { return nil }
                object[key.text] = v
            }
            return .object(object)
        }
    }

    private func scalarValue(_ node: YAMLNode) -> Value? {
        guard case .scalar(let s) = node.content else { return nil }
        return s.value
    }
}

/// A mapping node's entries, looked up by key.
package struct Mapping {
    package struct Entry {
        package let key: String
        package let keyLocation: SourceLocation
        package let value: YAMLNode
    }

    package let node: YAMLNode
    package let entries: [Entry]

    package subscript(key: String) -> YAMLNode? {
        entries.first { $0.key == key }?.value
    }

    package func entry(_ key: String) -> Entry? {
        entries.first { $0.key == key }
    }
}

extension YAMLNode {
    /// `a mapping`, `a list`, `the string 'x'`, `the number 3`, … for messages.
    package var kindDescription: String {
        switch content {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let s):
            switch s.value {
            case .null: return "null"
            case .bool(let b): return "the boolean \(b)"
            case .int, .double: return "the number \(s.text)"
            default: return "the string '\(s.text)'"
            }
        }
    }
}
