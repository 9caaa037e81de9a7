import ReformEngine
import ReformSDK

/// Paging read from one live response: the rules `--openapi` applies to declared parameters,
/// fields and headers (``PagingInference``), over the URL's query, the envelope's fields and the
/// headers that came back — and, since values are seen here, a next cursor in the body with no
/// cursor in the URL (the first page needs none), and a `has_more` flag.
enum URLPaging {
    /// Names of a body's flag saying whether a next page exists.
    static let hasMoreFields = ["has_more", "hasmore", "has_next", "hasnext", "has_next_page", "hasnextpage", "more"]

    /// Paging for a URL whose query is `query`, from a response with `body` and `headers`.
    static func infer(query: [QueryItem], body: Value, headers: [QueryItem]) -> PagingInference.Result {
        let parameters = query.map { PagingInference.Parameter(name: $0.name, defaultValue: Int($0.value)) }
        let fields = envelopeFields(of: body)
        var names = headers.map { $0.name.lowercased() }
        // A Link header is paging only when it can name a next page.
        if let link = headers.first(where: { $0.name.lowercased() == "link" }), !link.value.contains("rel=") {
            names.removeAll { $0 == "link" }
        }
        var result = PagingInference.infer(parameters: parameters, fields: fields.map { ($0.path, $0.isText) }, headers: names)
        if result.paging == nil, let token = nextToken(in: fields) {
            let param = cursorParameter(for: token.name)
            result = PagingInference.Result(
                paging: ["policy": "cursor", "param": .string(param), "token": .string(token.path)],
                comment: "'\(param)' is a guess from the response's '\(token.path)': check the API's name for it",
                pagingParameter: param, summary: "cursor")
        } else if result.paging == nil, let header = names.first(where: { $0.contains("cursor") || $0.contains("next-token") }) {
            result = PagingInference.Result(
                paging: ["policy": "cursor", "param": "cursor", "header": .string(header)],
                comment: "'cursor' is a guess: check the API's name for the parameter that sends \(header)'s value",
                pagingParameter: "cursor", summary: "cursor")
        }
        if case .object(var paging)? = result.paging,
            let flag = fields.first(where: { $0.isFlag && hasMoreFields.contains($0.name.lowercased()) })
        {
            paging["has_more"] = .string(flag.path)
            result.paging = .object(paging)
        }
        return result
    }

    /// A scalar field of the envelope, one and two deep.
    struct Field {
        var path: String
        var name: String
        /// Text, or null (a next cursor is null on the last page).
        var isText: Bool
        /// A boolean.
        var isFlag: Bool
        /// Whether it holds something (a cursor to send).
        var hasValue: Bool
    }

    /// The envelope's scalar fields (`next_cursor`, `meta.next`, `pagination.has_more`).
    static func envelopeFields(of body: Value) -> [Field] {
        var fields: [Field] = []
        func walk(_ object: Object, prefix: String, depth: Int) {
            for member in object.members {
                let path = prefix + Naming.pathSegment(member.key)
                switch member.value {
                case .object(let inner) where depth < 2: walk(inner, prefix: path + ".", depth: depth + 1)
                case .string(let text):
                    fields.append(Field(path: path, name: member.key, isText: true, isFlag: false, hasValue: !text.isEmpty))
                case .null: fields.append(Field(path: path, name: member.key, isText: true, isFlag: false, hasValue: false))
                case .int, .double: fields.append(Field(path: path, name: member.key, isText: false, isFlag: false, hasValue: true))
                case .bool: fields.append(Field(path: path, name: member.key, isText: false, isFlag: true, hasValue: true))
                default: break
                }
            }
        }
        if case .object(let object) = body { walk(object, prefix: "", depth: 0) }
        return fields
    }

    /// The first field holding a next cursor, by the names `--openapi` reads.
    private static func nextToken(in fields: [Field]) -> Field? {
        for name in PagingInference.tokenFields {
            for field in fields where field.isText && field.hasValue && field.name.lowercased() == name {
                let parents = field.path.split(separator: ".").dropLast().map { $0.lowercased() }
                if parents.allSatisfy({ PagingInference.envelopeParents.contains($0) }) { return field }
            }
        }
        return nil
    }

    /// The query parameter a cursor field's value is most likely sent as.
    static func cursorParameter(for field: String) -> String {
        let camel = field.contains(where: \.isUppercase)
        switch field.lowercased().replacing("_", with: "") {
        case "nextcursor", "cursor": return "cursor"
        case "nextpagetoken": return camel ? "pageToken" : "page_token"
        case "nexttoken": return camel ? "nextToken" : "next_token"
        case "endcursor", "after": return "after"
        case "nextmarker", "marker": return "marker"
        default: return field
        }
    }
}
