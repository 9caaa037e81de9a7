import ReformSDK

/// Records from an XML body (`format: xml`), read by libxml2's streaming reader: each element at
/// the manager's `records:` path of element names from the root (`rss.channel.item`,
/// `Envelope.Body.GetOrdersResponse.Order`; the root's children by default) becomes an object.
///
/// Names are local (a namespace prefix is dropped; `xmlns` attributes are left out). An element
/// with neither attributes nor child elements is its text, trimmed (`null` when empty); otherwise
/// an object of its attributes and child elements (a child name repeated: a list, in order), its
/// own text as `#text`, and an attribute whose name a child also has as `@name`. Every value is
/// text, as in CSV: convert it in a reformer. Entities are not expanded beyond XML's own five.
package enum XMLRecords {
    /// An element being read: its name, attributes, children and text.
    struct Element {
        var name: String
        var attributes: [(String, String)] = []
        var children: [(String, Value)] = []
        var text = ""

        var value: Value {
            let trimmed = XMLRecords.trimmed(text)
            guard !attributes.isEmpty || !children.isEmpty else { return trimmed.isEmpty ? .null : .string(trimmed) }
            var object = Object()
            let childNames = Set(children.map(\.0))
            for (name, value) in attributes { object[childNames.contains(name) ? "@" + name : name] = .string(value) }
            var order: [String] = []
            var grouped: [String: [Value]] = [:]
            for (name, value) in children {
                if grouped[name] == nil { order.append(name) }
                grouped[name, default: []].append(value)
            }
            for name in order {
                guard let values = grouped[name] else { continue }
                object[name] = values.count == 1 ? values[0] : .array(values)
            }
            if !trimmed.isEmpty { object["#text"] = .string(trimmed) }
            return .object(object)
        }
    }

    /// The records of `text`; `path` names the record elements from the root (nil: the root's
    /// children).
    static func records(_ text: String, path: ValuePath?) throws(ResponseRows.Problem) -> [Value] {
        let reader = try XMLRecordReader(text: text, path: path)
        var records: [Value] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    /// The element names from the root to the elements a body most likely lists as its records:
    /// the shallowest path at which an element repeats (`rss.channel.item`,
    /// `Envelope.Body.GetOrdersResponse.Order`), or the root's child when nothing repeats. What
    /// `reform init --url` writes as `records:` for an XML body; `nil` when it does not read.
    package static func repeatedElementPath(_ text: String) -> [String]? {
        guard case .success(let library) = LibXML2.shared else { return nil }
        return library.withReader(over: text) { reader -> [String]? in
            let silent: LibXML2.ErrorHandler = { _, _, _, _ in }
            library.setErrorHandler(reader, silent, nil)
            var path: [String] = []
            // Per parent path, how many times each child name came.
            var counts: [[String]: [String: Int]] = [:]
            var firstChild: [String]?
            while true {
                let status = library.read(reader)
                guard status == 1 else { break }
                switch LibXML2.NodeType(rawValue: library.nodeType(reader)) {
                case .element:
                    let name = library.localName(reader).map { String(cString: $0) } ?? ""
                    counts[path, default: [:]][name, default: 0] += 1
                    if path.count == 1, firstChild == nil { firstChild = path + [name] }
                    path.append(name)
                    if library.isEmptyElement(reader) == 1 { path.removeLast() }
                case .endElement:
                    path.removeLast()
                default:
                    break
                }
            }
            let repeated = counts.flatMap { parent, names in names.filter { $0.value > 1 }.map { (parent + [$0.key], $0.value) } }
            let best = repeated.min { ($0.0.count, -$0.1) < ($1.0.count, -$1.1) }
            return best?.0 ?? firstChild
        } ?? nil
    }

    /// `text` without white space at either end.
    static func trimmed(_ text: String) -> String {
        var slice = Substring(text)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}
