import ReformSystem

/// libxml2's streaming reader (`xmlTextReader`), loaded from the system's `libxml2.so.2` the first
/// time an XML body is read, not linked: a run that reads no XML needs neither libxml2 nor the ICU
/// and lzma it brings, and the release bundle stays on base Debian libraries. Only functions are
/// used (no struct of libxml2's), so they are declared here rather than through its headers.
struct LibXML2: @unchecked Sendable {
    typealias Reader = OpaquePointer
    typealias ErrorHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32, UnsafeMutableRawPointer?) -> Void
    /// `xmlInputReadCallback`: fills a buffer from the context, returning the bytes read (0 at the
    /// end, -1 on an error).
    typealias InputRead = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32
    /// `xmlInputCloseCallback`.
    typealias InputClose = @convention(c) (UnsafeMutableRawPointer?) -> Int32

    let readerForMemory: @convention(c) (UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32) -> Reader?
    let readerForIO:
        @convention(c) (InputRead?, InputClose?, UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32) -> Reader?
    let read: @convention(c) (Reader?) -> Int32
    let nodeType: @convention(c) (Reader?) -> Int32
    let localName: @convention(c) (Reader?) -> UnsafePointer<UInt8>?
    let prefix: @convention(c) (Reader?) -> UnsafePointer<UInt8>?
    let value: @convention(c) (Reader?) -> UnsafePointer<UInt8>?
    let isEmptyElement: @convention(c) (Reader?) -> Int32
    let moveToNextAttribute: @convention(c) (Reader?) -> Int32
    let moveToElement: @convention(c) (Reader?) -> Int32
    let free: @convention(c) (Reader?) -> Void
    let setErrorHandler: @convention(c) (Reader?, ErrorHandler?, UnsafeMutableRawPointer?) -> Void
    let locatorLine: @convention(c) (UnsafeMutableRawPointer?) -> Int32

    /// `xmlParserOption`s: no network access (`XML_PARSE_NONET`), CDATA as text
    /// (`XML_PARSE_NOCDATA`). Entities are never substituted (no `XML_PARSE_NOENT`) and no DTD is
    /// loaded, so an entity bomb or an external entity stays what it is: unexpanded.
    static let options: Int32 = (1 << 11) | (1 << 14)

    /// `xmlReaderTypes` this reader acts on.
    enum NodeType: Int32 {
        case element = 1
        case text = 3
        case cdata = 4
        case significantWhitespace = 14
        case endElement = 15
    }

    /// `body` with a reader over `text` (no network, no entity expanded: ``options``), freed
    /// afterwards; `nil` when libxml2 cannot start reading it.
    func withReader<T>(over text: String, _ body: (Reader) -> T) -> T? {
        var bytes = Array(text.utf8)
        let count = Int32(clamping: bytes.count)
        return bytes.withUnsafeMutableBytes { buffer -> T? in
            let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self)
            guard let reader = readerForMemory(base, count, "body.xml", nil, LibXML2.options) else { return nil }
            defer { free(reader) }
            return body(reader)
        }
    }

    /// The library, loaded once; the failure says how to install it.
    static let shared: Result<LibXML2, ResponseRows.Problem> = load()

    private static func load() -> Result<LibXML2, ResponseRows.Problem> {
        guard let library = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL) ?? dlopen("libxml2.so", RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(
                ResponseRows.Problem(
                    description: "cannot be read: XML needs the system libxml2, which cannot be loaded (\(reason)); "
                        + "install it (apt-get install libxml2)"))
        }
        let names = [
            "xmlReaderForMemory", "xmlReaderForIO", "xmlTextReaderRead", "xmlTextReaderNodeType", "xmlTextReaderConstLocalName",
            "xmlTextReaderConstPrefix", "xmlTextReaderConstValue", "xmlTextReaderIsEmptyElement", "xmlTextReaderMoveToNextAttribute",
            "xmlTextReaderMoveToElement", "xmlFreeTextReader", "xmlTextReaderSetErrorHandler", "xmlTextReaderLocatorLineNumber",
        ]
        let missing = names.filter { dlsym(library, $0) == nil }
        guard missing.isEmpty else {
            let names = missing.joined(separator: ", ")
            return .failure(ResponseRows.Problem(description: "cannot be read: the system libxml2 lacks \(names)"))
        }
        // Every name is there (checked above): each address becomes its C function's type.
        func symbol<F>(_ name: String, as type: F.Type) -> F { unsafeBitCast(dlsym(library, name), to: type) }
        typealias Text = @convention(c) (Reader?) -> UnsafePointer<UInt8>?
        typealias Status = @convention(c) (Reader?) -> Int32
        return .success(
            LibXML2(
                readerForMemory: symbol(
                    "xmlReaderForMemory",
                    as: (@convention(c) (UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32) -> Reader?)
                        .self),
                readerForIO: symbol(
                    "xmlReaderForIO",
                    as: (@convention(c) (
                        InputRead?, InputClose?, UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32
                    ) -> Reader?).self),
                read: symbol("xmlTextReaderRead", as: Status.self),
                nodeType: symbol("xmlTextReaderNodeType", as: Status.self),
                localName: symbol("xmlTextReaderConstLocalName", as: Text.self),
                prefix: symbol("xmlTextReaderConstPrefix", as: Text.self),
                value: symbol("xmlTextReaderConstValue", as: Text.self),
                isEmptyElement: symbol("xmlTextReaderIsEmptyElement", as: Status.self),
                moveToNextAttribute: symbol("xmlTextReaderMoveToNextAttribute", as: Status.self),
                moveToElement: symbol("xmlTextReaderMoveToElement", as: Status.self),
                free: symbol("xmlFreeTextReader", as: (@convention(c) (Reader?) -> Void).self),
                setErrorHandler: symbol(
                    "xmlTextReaderSetErrorHandler", as: (@convention(c) (Reader?, ErrorHandler?, UnsafeMutableRawPointer?) -> Void).self),
                locatorLine: symbol("xmlTextReaderLocatorLineNumber", as: (@convention(c) (UnsafeMutableRawPointer?) -> Int32).self)))
    }
}
