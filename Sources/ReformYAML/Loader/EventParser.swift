internal import CYAML

/// One parsing event, copied out of libyaml into Swift values.
enum Event {
    case streamStart
    case streamEnd
    /// `hasDirectives`: `%YAML` or `%TAG` lines precede the document's `---`.
    case documentStart(location: SourceLocation, hasDirectives: Bool)
    /// `isImplicit`: the document ended without a `...` marker.
    case documentEnd(isImplicit: Bool)
    case alias(name: String, location: SourceLocation)
    case scalar(ScalarEvent)
    case sequenceStart(CollectionEvent)
    case sequenceEnd(end: SourceLocation)
    case mappingStart(CollectionEvent)
    case mappingEnd(end: SourceLocation)
}

/// The properties of a scalar event.
struct ScalarEvent {
    var anchor: String?
    var tag: String?
    var text: String
    var style: YAMLScalar.Style
    var location: SourceLocation
    /// Just past the scalar's last character (the closing quote for quoted scalars).
    var end: SourceLocation
}

/// The properties of a sequence or mapping start event.
struct CollectionEvent {
    var anchor: String?
    var tag: String?
    var isFlow: Bool
    var location: SourceLocation
}

/// libyaml's event parser (`yaml_parser_parse`) over a buffer that outlives it.
///
/// Owns the C parser state; turns libyaml's reader, scanner and parser errors into ``YAMLError``s.
struct EventParser: ~Copyable {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeBufferPointer<UInt8>
    private let file: String
    private var finished = false

    /// A parser reading `input`, which must stay valid for the parser's lifetime.
    init(input: UnsafeBufferPointer<UInt8>, file: String) throws(YAMLError) {
        self.input = input
        self.file = file
        parser = .allocate(capacity: 1)
        guard yaml_parser_initialize(parser) != 0 else {
            parser.deallocate()
            throw YAMLError(
                code: .syntax, file: file, location: SourceLocation(line: 1, column: 1),
                message: "libyaml could not allocate its parser")
        }
        guard let base = input.baseAddress else {
            yaml_parser_delete(parser)
            parser.deallocate()
            throw YAMLError(
                code: .syntax, file: file, location: SourceLocation(line: 1, column: 1),
                message: "no input buffer to parse")
        }
        yaml_parser_set_input_string(parser, base, input.count)
        yaml_parser_set_encoding(parser, YAML_ANY_ENCODING)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
    }

    /// The next event; ``Event/streamEnd`` once the input is exhausted.
    mutating func next() throws(YAMLError) -> Event {
        if finished { return .streamEnd }
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) != 0 else { throw error() }
        defer { yaml_event_delete(&event) }
        let location = Self.location(event.start_mark)
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return .streamStart
        case YAML_STREAM_END_EVENT:
            finished = true
            return .streamEnd
        case YAML_DOCUMENT_START_EVENT:
            let data = event.data.document_start
            let hasDirectives =
                data.version_directive != nil || data.tag_directives.start != data.tag_directives.end
            return .documentStart(location: location, hasDirectives: hasDirectives)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd(isImplicit: event.data.document_end.implicit != 0)
        case YAML_ALIAS_EVENT:
            return .alias(name: Self.string(event.data.alias.anchor) ?? "", location: location)
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text =
                data.value.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: data.length), as: UTF8.self)
                } ?? ""
            let style: YAMLScalar.Style =
                switch data.style {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
                case YAML_LITERAL_SCALAR_STYLE: .literal
                case YAML_FOLDED_SCALAR_STYLE: .folded
                default: .plain
                }
            return .scalar(
                ScalarEvent(
                    anchor: Self.string(data.anchor), tag: Self.string(data.tag), text: text, style: style,
                    location: location, end: Self.location(event.end_mark)))
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            return .sequenceStart(
                CollectionEvent(
                    anchor: Self.string(data.anchor), tag: Self.string(data.tag),
                    isFlow: data.style == YAML_FLOW_SEQUENCE_STYLE, location: location))
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd(end: Self.location(event.end_mark))
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            return .mappingStart(
                CollectionEvent(
                    anchor: Self.string(data.anchor), tag: Self.string(data.tag),
                    isFlow: data.style == YAML_FLOW_MAPPING_STYLE, location: location))
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd(end: Self.location(event.end_mark))
        default:
            return try next()
        }
    }

    /// The error libyaml reported, as a ``YAMLError``.
    private func error() -> YAMLError {
        let state = parser.pointee
        let problem = Self.string(state.problem) ?? "unknown problem"
        switch state.error {
        case YAML_MEMORY_ERROR:
            return YAMLError(
                code: .syntax, file: file, location: Self.location(state.problem_mark), message: "out of memory")
        case YAML_READER_ERROR:
            var message = problem
            if state.problem_value != -1 {
                message += " 0x" + String(UInt32(bitPattern: state.problem_value), radix: 16, uppercase: true)
            }
            return YAMLError(
                code: .syntax, file: file, location: location(ofByte: state.problem_offset), message: message)
        default:
            let location = Self.location(state.problem_mark)
            guard let context = Self.string(state.context) else {
                return YAMLError(code: .syntax, file: file, location: location, message: problem)
            }
            let contextLocation = Self.location(state.context_mark)
            var notes: [YAMLError.Note] = []
            if contextLocation != location, let subject = Self.subject(ofContext: context) {
                notes.append(YAMLError.Note(location: contextLocation, message: "\(subject) starts here"))
            }
            return YAMLError(
                code: .syntax, file: file, location: location, message: "\(problem) \(context)", notes: notes)
        }
    }

    /// `the quoted scalar` for libyaml's context `while scanning a quoted scalar`.
    private static func subject(ofContext context: String) -> String? {
        for prefix in ["while scanning ", "while parsing "] where context.hasPrefix(prefix) {
            var subject = context.dropFirst(prefix.count)
            if subject.hasPrefix("a ") {
                subject = subject.dropFirst(2)
            } else if subject.hasPrefix("an ") {
                subject = subject.dropFirst(3)
            }
            return "the " + subject
        }
        return nil
    }

    /// The 1-based line and column of byte `offset` of the input (columns count characters).
    private func location(ofByte offset: Int) -> SourceLocation {
        var line = 1
        var column = 1
        var index = 0
        while index < min(offset, input.count) {
            let byte = input[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return SourceLocation(line: line, column: column)
    }

    private static func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(line: mark.line + 1, column: mark.column + 1)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
