/// Checks for input that YAML 1.2 forbids but libyaml 0.2.5 accepts, each cheap and certain.
///
/// - a directive (`%YAML`, `%TAG`) after a document that did not end with `...`;
/// - `#` right after a quoted scalar, a flow collection, a block scalar header or a `%YAML`
///   version, where YAML needs whitespace before a comment;
/// - a plain `-` as an entry of a flow collection;
/// - lines of a quoted scalar or flow collection inside a block collection that are not
///   indented more than that block collection.
extension Composer {
    /// A document starting: directives need the previous document closed by `...`.
    mutating func checkDocumentStart(at location: SourceLocation, hasDirectives: Bool) throws(YAMLError) {
        guard hasDirectives else { return }
        if previousDocumentEndedImplicitly {
            throw YAMLError(
                code: .syntax, file: file, location: location,
                message: "directives after a document need the document end marker '...' before them")
        }
        // `%YAML 1.2#comment`: libyaml ends the version at '#' and takes the rest as a comment.
        var line = location.line
        while let text = source.line(line), text.first == "%" {
            let string = String(String.UnicodeScalarView(text))
            if string.hasPrefix("%YAML"), let hash = text.firstIndex(of: "#"), hash > 0,
                text[hash - 1] != " ", text[hash - 1] != "\t"
            {
                throw commentWithoutSpace(at: SourceLocation(line: line, column: hash + 1))
            }
            line += 1
        }
    }

    /// A scalar arriving inside `parent` (`nil` at the document's top).
    mutating func checkScalar(_ event: ScalarEvent, parent: CollectionEvent?, parentIndent: Int?) throws(YAMLError) {
        switch event.style {
        case .plain:
            if event.text == "-", event.tag == nil, parent?.isFlow == true {
                throw YAMLError(
                    code: .syntax, file: file, location: event.location,
                    message: "a plain '-' cannot be an entry of a flow collection; quote it as \"-\"")
            }
        case .singleQuoted, .doubleQuoted:
            try checkNoCommentRightAfter(event.end)
            if let parentIndent, event.end.line > event.location.line {
                try checkContinuationLines(
                    from: event.location, to: event.end, indent: parentIndent, what: "quoted scalar", skipComments: false)
            }
        case .literal, .folded:
            try checkBlockScalarHeader(startingAt: event.location)
        }
    }

    /// A flow collection that just closed at `end` inside a block collection indented `parentIndent`.
    mutating func checkFlowCollection(
        _ event: CollectionEvent, isMapping: Bool, end: SourceLocation, parentIndent: Int?
    ) throws(YAMLError) {
        try checkNoCommentRightAfter(end)
        if let parentIndent, end.line > event.location.line {
            try checkContinuationLines(
                from: event.location, to: end, indent: parentIndent,
                what: isMapping ? "flow mapping" : "flow sequence", skipComments: true)
        }
    }

    private mutating func checkNoCommentRightAfter(_ end: SourceLocation) throws(YAMLError) {
        if source.character(at: end) == "#" { throw commentWithoutSpace(at: end) }
    }

    private func commentWithoutSpace(at location: SourceLocation) -> YAMLError {
        YAMLError(
            code: .syntax, file: file, location: location,
            message: "a comment needs whitespace before '#'")
    }

    /// `|+2 # comment` is fine, `># comment` is not.
    private mutating func checkBlockScalarHeader(startingAt location: SourceLocation) throws(YAMLError) {
        guard let text = source.line(location.line) else { return }
        var i = location.column - 1
        // Skip the node's properties (`&anchor`, `!tag`) and the spaces between them.
        while i < text.count, text[i] == "&" || text[i] == "!" || text[i] == " " || text[i] == "\t" {
            if text[i] == " " || text[i] == "\t" {
                i += 1
            } else {
                while i < text.count, text[i] != " ", text[i] != "\t" { i += 1 }
            }
        }
        guard i < text.count, text[i] == "|" || text[i] == ">" else { return }
        i += 1
        while i < text.count, text[i] == "+" || text[i] == "-" || ("1"..."9").contains(text[i]) { i += 1 }
        if i < text.count, text[i] == "#" {
            throw commentWithoutSpace(at: SourceLocation(line: location.line, column: i + 1))
        }
    }

    /// Every non-blank line after the first, up to `end`, must be indented more than `indent` spaces.
    private mutating func checkContinuationLines(
        from start: SourceLocation, to end: SourceLocation, indent: Int, what: String, skipComments: Bool
    ) throws(YAMLError) {
        for lineNumber in (start.line + 1)...end.line {
            guard let text = source.line(lineNumber) else { return }
            let spaces = text.prefix { $0 == " " }.count
            guard let first = text.first(where: { $0 != " " && $0 != "\t" }) else { continue }
            if skipComments, first == "#" { continue }
            if spaces <= indent {
                throw YAMLError(
                    code: .syntax, file: file, location: SourceLocation(line: lineNumber, column: spaces + 1),
                    message: "this line of a \(what) must be indented by at least \(indent + 1) "
                        + "space\(indent == 0 ? "" : "s"), more than the block collection holding it",
                    notes: [YAMLError.Note(location: start, message: "the \(what) starts here")])
            }
        }
    }
}
