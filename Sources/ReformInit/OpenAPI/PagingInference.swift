import ReformSDK

/// How `reform init` reads paging from what an operation declares: its query parameters, the
/// fields of its response envelope and its response headers. Every rule is a name the API uses
/// for the thing; where none fits, the manager gets no paging and a comment says why.
struct PagingInference {
    /// A query parameter the operation declares.
    struct Parameter {
        var name: String
        /// Its declared default, minimum and maximum, when numbers.
        var defaultValue: Int?
        var minimum: Int?
        var maximum: Int?
    }

    /// What was inferred.
    struct Result {
        /// The manager's `paging:` (nil: none, one request).
        var paging: Value?
        /// Why, or what is missing (written beside it).
        var comment: String?
        /// The parameter paging sets (left out of the manager's `params`).
        var pagingParameter: String?
        /// The page-size parameter, and the default it is given so that a short page can stop paging.
        var sizeParameter: String?
        var sizeDefault: Int?
        /// `link`, `page`, `offset`, `cursor`, `next-url` or `none`, for the report.
        var summary: String
    }

    /// Parameter names that carry a page number, an offset, a cursor or a page size.
    static let pageNames = ["page", "page_number", "pagenumber", "page_no", "pageno", "page_index", "pageindex", "p"]
    static let offsetNames = ["offset", "skip", "start", "start_index", "startindex", "from"]
    static let cursorNames = [
        "cursor", "after", "page_token", "pagetoken", "next_token", "nexttoken", "starting_after", "continuation",
        "continuation_token", "continuationtoken", "marker", "page_after", "after_cursor", "next_cursor", "nextcursor",
    ]
    static let sizeNames = [
        "per_page", "perpage", "page_size", "pagesize", "limit", "size", "count", "max_results", "maxresults", "top", "$top",
        "page_limit", "results_per_page", "num", "rows",
    ]
    /// Response fields holding the next cursor, and the next page's URL.
    static let tokenFields = [
        "next_cursor", "nextcursor", "next_page_token", "nextpagetoken", "next_token", "nexttoken", "end_cursor",
        "endcursor", "cursor", "continuation", "continuation_token", "next_marker", "nextmarker", "marker", "after",
    ]
    static let nextURLFields = ["next", "next_url", "nexturl", "next_page_url", "nextpageurl", "next_link", "nextlink", "href"]
    static let envelopeParents = [
        "", "meta", "pagination", "paging", "links", "_links", "page_info", "pageinfo", "response_metadata", "next",
    ]

    /// Reads paging from `parameters` (query), the scalar fields of the response (`fields`: dotted
    /// paths of the envelope, at most two deep; empty for a bare array) and `headers`.
    static func infer(parameters: [Parameter], fields: [(path: String, isText: Bool)], headers: [String]) -> Result {
        func parameter(in names: [String]) -> Parameter? {
            names.lazy.compactMap { name in parameters.first { $0.name.lowercased() == name } }.first
        }
        let size = parameter(in: sizeNames)
        let sizeDefault = size.flatMap { $0.defaultValue ?? $0.maximum.map { min($0, 100) } }
        func stops(_ result: inout Result) -> Value {
            guard let size, sizeDefault != nil else { return ["empty_page"] }
            result.sizeParameter = size.name
            result.sizeDefault = sizeDefault
            return ["empty_page", "short_page"]
        }

        if headers.contains(where: { $0.lowercased() == "link" }) {
            var result = Result(paging: ["policy": "link"], comment: "the response declares a Link header", summary: "link")
            result.pagingParameter = parameter(in: pageNames)?.name
            if let size, let sizeDefault {
                result.sizeParameter = size.name
                result.sizeDefault = sizeDefault
            }
            return result
        }
        if let cursor = parameter(in: cursorNames) {
            if let token = field(named: tokenFields, in: fields, text: true)
                ?? field(named: [cursor.name.lowercased()], in: fields, text: true)
            {
                return Result(
                    paging: ["policy": "cursor", "param": .string(cursor.name), "token": .string(token)], pagingParameter: cursor.name,
                    summary: "cursor")
            }
            if let header = headers.first(where: {
                let h = $0.lowercased()
                return h.contains("cursor") || h.contains("continuation") || h.contains("next-token")
            }) {
                return Result(
                    paging: ["policy": "cursor", "param": .string(cursor.name), "header": .string(header)], pagingParameter: cursor.name,
                    summary: "cursor")
            }
            return Result(
                comment: "'\(cursor.name)' looks like a cursor, but the response declares no field or header with the next one: "
                    + "add paging: { policy: cursor, param: \(cursor.name), token: PATH }",
                summary: "none")
        }
        if let next = field(named: nextURLFields, in: fields, text: true) {
            return Result(paging: ["policy": "next-url", "token": .string(next)], summary: "next-url")
        }
        if let offset = parameter(in: offsetNames) {
            var result = Result(pagingParameter: offset.name, summary: "offset")
            let stop = stops(&result)
            var paging: Object = [
                "policy": "offset", "param": .string(offset.name), "start": .int(offset.defaultValue ?? offset.minimum ?? 0),
            ]
            if let sizeParameter = result.sizeParameter { paging.appendNew(key: "size_param", value: .string(sizeParameter)) }
            paging.appendNew(key: "stop", value: stop)
            result.paging = .object(paging)
            return result
        }
        if let page = parameter(in: pageNames) {
            var result = Result(pagingParameter: page.name, summary: "page")
            let stop = stops(&result)
            var paging: Object = ["policy": "page", "param": .string(page.name), "start": .int(page.defaultValue ?? page.minimum ?? 1)]
            if let sizeParameter = result.sizeParameter { paging.appendNew(key: "size_param", value: .string(sizeParameter)) }
            paging.appendNew(key: "stop", value: stop)
            result.paging = .object(paging)
            return result
        }
        return Result(comment: "no paging: the operation declares no page, offset or cursor parameter, nor a Link header", summary: "none")
    }

    /// The first field, in the order of `names`, whose last segment is one of them, directly in
    /// the envelope or under a paging object (`meta.next_cursor`, `pagination.next`, `links.next.href`).
    private static func field(named names: [String], in fields: [(path: String, isText: Bool)], text: Bool) -> String? {
        for name in names {
            for field in fields where !text || field.isText {
                let segments = field.path.split(separator: ".").map { $0.lowercased() }
                guard segments.last == name else { continue }
                let parents = segments.dropLast()
                // `href` is a next link only under `next` (`_links.next.href`), never a record's own.
                if name == "href", parents.last != "next" { continue }
                if parents.isEmpty || parents.allSatisfy({ envelopeParents.contains($0) }) { return field.path }
            }
        }
        return nil
    }
}
