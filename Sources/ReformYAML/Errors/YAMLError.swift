/// Why a YAML input could not be loaded or converted, and where.
///
/// Prints like a compiler diagnostic (`file:line:column: error: message`); ``diagnostics`` adds
/// notes for related places (the first occurrence of a duplicate key, where a quoted scalar
/// started), and ``rendered(source:)`` adds the source line and a caret.
public struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is, for code that reacts to some of them.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// A short name of the kind.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The name.
        public var description: String { name }

        /// The file could not be read.
        public static let unreadable = Code("unreadable")
        /// The input breaks YAML's syntax (reported by libyaml's reader, scanner or parser).
        public static let syntax = Code("syntax")
        /// The input is larger than ``YAMLLimits/maxInputBytes``.
        public static let inputTooLarge = Code("inputTooLarge")
        /// Sequences and mappings nest deeper than ``YAMLLimits/maxDepth``.
        public static let tooDeep = Code("tooDeep")
        /// Alias expansion or node count passed ``YAMLLimits/maxAliasNodes`` or ``YAMLLimits/maxNodes``.
        public static let tooManyNodes = Code("tooManyNodes")
        /// An alias names no anchor defined before it (or the node that encloses it).
        public static let undefinedAlias = Code("undefinedAlias")
        /// One mapping holds the same key twice.
        public static let duplicateKey = Code("duplicateKey")
        /// A scalar's text is not valid for its explicit tag (`!!int abc`), or a tag is on the
        /// wrong kind of node (`!!map` on a sequence).
        public static let invalidTag = Code("invalidTag")
        /// A merge key `<<` whose value is not a mapping or a sequence of mappings.
        public static let invalidMerge = Code("invalidMerge")
        /// A mapping key that cannot become a JSON object key (a sequence or mapping).
        public static let unsupportedKey = Code("unsupportedKey")
    }

    /// A related place mentioned after the error.
    public struct Note: Sendable, Hashable {
        /// Where.
        public let location: SourceLocation
        /// What is there.
        public let message: String

        /// A note saying `message` about `location`.
        public init(location: SourceLocation, message: String) {
            self.location = location
            self.message = message
        }
    }

    /// The kind of problem.
    public let code: Code
    /// The file as the user named it.
    public let file: String
    /// Where the problem is.
    public let location: SourceLocation
    /// What is wrong.
    public let message: String
    /// Related places.
    public let notes: [Note]

    /// An error of kind `code` at `location` in `file`.
    public init(code: Code, file: String, location: SourceLocation, message: String, notes: [Note] = []) {
        self.code = code
        self.file = file
        self.location = location
        self.message = message
        self.notes = notes
    }

    /// The error as a ``Diagnostic``.
    public var diagnostic: Diagnostic {
        Diagnostic(file: file, location: location, severity: .error, message: message)
    }

    /// The error followed by its notes.
    public var diagnostics: [Diagnostic] {
        [diagnostic]
            + notes.map { Diagnostic(file: file, location: $0.location, severity: .note, message: $0.message) }
    }

    /// `file:line:column: error: message`.
    public var description: String { diagnostic.description }

    /// Every diagnostic with its source line and caret, separated by newlines.
    public func rendered(source: String?) -> String {
        Diagnostic.render(diagnostics, source: source)
    }
}
