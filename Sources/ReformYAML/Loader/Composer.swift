import ReformSDK

/// Builds ``YAMLNode`` trees from libyaml events: expands aliases, applies merge keys, resolves
/// scalars and enforces ``YAMLLimits`` — without recursion, so no input can overflow the stack.
struct Composer {
    /// A node that an anchor names, with what copying it costs.
    private struct Anchored {
        var node: YAMLNode
        /// Nodes in the subtree, the node itself included.
        var size: Int
        /// Collection levels in the subtree (0 for a scalar).
        var height: Int
        var ordinal: Int
    }

    /// A sequence or mapping still being read.
    private struct Frame {
        var isMapping: Bool
        var event: CollectionEvent
        var children: [YAMLNode] = []
        var size = 1
        var height = 1
        var anchorOrdinal = 0
    }

    let file: String
    let limits: YAMLLimits

    private var anchors: [String: Anchored] = [:]
    /// The ordinal of the latest anchor definition of each name, complete or not.
    private var latestAnchor: [String: Int] = [:]
    private var anchorCount = 0
    private var aliasNodes = 0
    private var totalNodes = 0
    private var stack: [Frame] = []
    private var root: YAMLNode?
    /// The input by line and column, for the checks libyaml leaves out.
    var source: SourceText
    /// Whether the last document ended without `...`.
    var previousDocumentEndedImplicitly = false

    /// A composer for the events of `input` (which must outlive it), named `file` in errors.
    init(input: UnsafeBufferPointer<UInt8>, file: String, limits: YAMLLimits) {
        self.file = file
        self.limits = limits
        source = SourceText(input)
    }

    /// Every document of the stream, in order.
    mutating func documents(from parser: inout EventParser) throws(YAMLError) -> [YAMLNode] {
        var documents: [YAMLNode] = []
        while true {
            switch try parser.next() {
            case .streamStart:
                break
            case .streamEnd:
                return documents
            case .documentStart(let location, let hasDirectives):
                try checkDocumentStart(at: location, hasDirectives: hasDirectives)
                anchors = [:]
                latestAnchor = [:]
                root = nil
            case .documentEnd(let isImplicit):
                previousDocumentEndedImplicitly = isImplicit
                if let root { documents.append(root) }
                root = nil
            case .alias(let name, let location):
                try alias(name, at: location)
            case .scalar(let event):
                try scalar(event)
            case .sequenceStart(let event):
                try open(event, isMapping: false)
            case .mappingStart(let event):
                try open(event, isMapping: true)
            case .sequenceEnd(let end), .mappingEnd(let end):
                try close(at: end)
            }
        }
    }

    // MARK: - Events

    private mutating func scalar(_ event: ScalarEvent) throws(YAMLError) {
        try checkScalar(event, parent: stack.last?.event, parentIndent: stack.last.flatMap(Self.blockIndent))
        let value = try Self.value(of: event, file: file)
        let node = YAMLNode(
            content: .scalar(YAMLScalar(text: event.text, style: event.style, value: value)),
            location: event.location, tag: event.tag)
        if let anchor = event.anchor {
            anchorCount += 1
            latestAnchor[anchor] = anchorCount
            anchors[anchor] = Anchored(node: node, size: 1, height: 0, ordinal: anchorCount)
        }
        try add(node, size: 1, height: 0)
    }

    private mutating func alias(_ name: String, at location: SourceLocation) throws(YAMLError) {
        guard let anchored = anchors[name] else {
            let recursive = latestAnchor[name] != nil
            throw YAMLError(
                code: .undefinedAlias, file: file, location: location,
                message: recursive
                    ? "alias '*\(name)' refers to a node that contains it; recursive structures cannot be loaded"
                    : "alias '*\(name)' refers to no anchor '&\(name)' defined before it in this document")
        }
        aliasNodes += anchored.size
        if aliasNodes > limits.maxAliasNodes {
            throw YAMLError(
                code: .tooManyNodes, file: file, location: location,
                message: "alias '*\(name)' expands past \(limits.maxAliasNodes) alias-copied nodes "
                    + "(YAMLLimits.maxAliasNodes; raise it with reform --yaml-max-alias-nodes); aliases that multiply like this ('billion laughs') are rejected",
                notes: [YAMLError.Note(location: anchored.node.location, message: "anchor '&\(name)' is defined here")])
        }
        if stack.count + anchored.height > limits.maxDepth {
            throw YAMLError(
                code: .tooDeep, file: file, location: location,
                message: "alias '*\(name)' nests sequences and mappings deeper than \(limits.maxDepth) levels "
                    + "(YAMLLimits.maxDepth; raise it with reform --yaml-max-depth)")
        }
        try add(anchored.node, size: anchored.size, height: anchored.height)
    }

    private mutating func open(_ event: CollectionEvent, isMapping: Bool) throws(YAMLError) {
        if stack.count >= limits.maxDepth {
            throw YAMLError(
                code: .tooDeep, file: file, location: event.location,
                message:
                    "sequences and mappings nest deeper than \(limits.maxDepth) levels (YAMLLimits.maxDepth; raise it with reform --yaml-max-depth)"
            )
        }
        var frame = Frame(isMapping: isMapping, event: event)
        if let anchor = event.anchor {
            anchorCount += 1
            latestAnchor[anchor] = anchorCount
            anchors[anchor] = nil
            frame.anchorOrdinal = anchorCount
        }
        stack.append(frame)
    }

    private mutating func close(at end: SourceLocation) throws(YAMLError) {
        guard let frame = stack.popLast() else { return }
        let event = frame.event
        if event.isFlow {
            try checkFlowCollection(
                event, isMapping: frame.isMapping, end: end, parentIndent: stack.last.flatMap(Self.blockIndent))
        }
        let content: YAMLNode.Content
        if frame.isMapping {
            try Self.checkCollectionTag(event, kind: "a mapping", allowed: CoreSchema.Tag.map, file: file)
            var pairs: [YAMLPair] = []
            pairs.reserveCapacity(frame.children.count / 2)
            var index = 0
            while index + 1 < frame.children.count {
                pairs.append(YAMLPair(key: frame.children[index], value: frame.children[index + 1]))
                index += 2
            }
            content = .mapping(try MappingRules.apply(to: pairs, file: file))
        } else {
            try Self.checkCollectionTag(event, kind: "a sequence", allowed: CoreSchema.Tag.seq, file: file)
            content = .sequence(frame.children)
        }
        let node = YAMLNode(content: content, location: event.location, tag: event.tag)
        if let anchor = event.anchor, latestAnchor[anchor] == frame.anchorOrdinal {
            anchors[anchor] = Anchored(node: node, size: frame.size, height: frame.height, ordinal: frame.anchorOrdinal)
        }
        try add(node, size: frame.size, height: frame.height, counted: true)
    }

    /// Appends a finished node to the open collection (or makes it the document's root).
    private mutating func add(_ node: YAMLNode, size: Int, height: Int, counted: Bool = false) throws(YAMLError) {
        // A collection's own nodes were counted as its children arrived; count it once more for itself.
        totalNodes += counted ? 1 : size
        if totalNodes > limits.maxNodes {
            throw YAMLError(
                code: .tooManyNodes, file: file, location: node.location,
                message: "the input holds more than \(limits.maxNodes) nodes (YAMLLimits.maxNodes)")
        }
        guard !stack.isEmpty else {
            root = node
            return
        }
        stack[stack.count - 1].children.append(node)
        stack[stack.count - 1].size += size
        stack[stack.count - 1].height = max(stack[stack.count - 1].height, height + 1)
    }

    /// The indentation (in spaces) of a block collection, when it is certain.
    private static func blockIndent(of frame: Frame) -> Int? {
        guard !frame.event.isFlow else { return nil }
        // With properties the event starts at them, which may sit on an earlier line.
        if frame.event.anchor == nil, frame.event.tag == nil { return frame.event.location.column - 1 }
        if frame.isMapping, let firstKey = frame.children.first { return firstKey.location.column - 1 }
        return nil
    }

    // MARK: - Tags

    /// The value of a scalar, by its explicit tag or else by the core schema.
    static func value(of event: ScalarEvent, file: String) throws(YAMLError) -> Value {
        let text = event.text
        func invalid(_ what: String) -> YAMLError {
            let tag = CoreSchema.Tag.shortName(event.tag ?? "")
            return YAMLError(
                code: .invalidTag, file: file, location: event.location,
                message: "'\(text)' is not a valid \(tag); \(what)")
        }
        switch event.tag {
        case nil:
            return event.style == .plain ? CoreSchema.resolvePlain(text) : .string(text)
        case CoreSchema.Tag.nonSpecific, CoreSchema.Tag.string:
            return .string(text)
        case CoreSchema.Tag.int:
            guard let int = CoreSchema.int(text) else {
                throw invalid("write a decimal integer, 0o followed by octal digits, or 0x followed by hex digits")
            }
            return int
        case CoreSchema.Tag.float:
            guard let double = CoreSchema.float(text) else {
                throw invalid("write a decimal number such as 1.5 or 1e3, .inf, -.inf or .nan")
            }
            return .double(double)
        case CoreSchema.Tag.bool:
            guard let bool = CoreSchema.bool(text) else { throw invalid("write true or false") }
            return .bool(bool)
        case CoreSchema.Tag.null:
            guard let null = CoreSchema.null(text) else { throw invalid("write null, ~ or nothing") }
            return null
        case CoreSchema.Tag.map, CoreSchema.Tag.seq:
            let tag = CoreSchema.Tag.shortName(event.tag ?? "")
            throw YAMLError(
                code: .invalidTag, file: file, location: event.location,
                message: "tag \(tag) is for \(tag == "!!map" ? "mappings" : "sequences"), not a scalar")
        default:
            return event.style == .plain ? CoreSchema.resolvePlain(text) : .string(text)
        }
    }

    private static func checkCollectionTag(
        _ event: CollectionEvent, kind: String, allowed: String, file: String
    ) throws(YAMLError) {
        guard let tag = event.tag, tag != allowed else { return }
        let scalarTags = [
            CoreSchema.Tag.string, CoreSchema.Tag.int, CoreSchema.Tag.float, CoreSchema.Tag.bool, CoreSchema.Tag.null,
        ]
        let kindOfTag: String
        if scalarTags.contains(tag) {
            kindOfTag = "scalars"
        } else if tag == CoreSchema.Tag.map {
            kindOfTag = "mappings"
        } else if tag == CoreSchema.Tag.seq {
            kindOfTag = "sequences"
        } else {
            return
        }
        throw YAMLError(
            code: .invalidTag, file: file, location: event.location,
            message: "tag \(CoreSchema.Tag.shortName(tag)) is for \(kindOfTag), not \(kind)")
    }
}
