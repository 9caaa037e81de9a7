import ReformSDK

/// Reads the records of an XML document one at a time with libxml2's streaming reader
/// (``XMLRecords`` says what a record is): from text in memory (a page), or from bytes a reading
/// function hands over as they are asked for (a result file, never held whole). Memory stays at
/// libxml2's buffer and the record being read.
final class XMLRecordReader {
    private let library: LibXML2
    private let reader: LibXML2.Reader
    private let problem = ProblemBox()
    /// The document's bytes when it is read from memory (libxml2 reads them in place).
    private let text: UnsafeMutableBufferPointer<UInt8>?
    /// The reading function when it is read from a source, kept alive for libxml2's callbacks.
    private let source: Source?
    private let names: [String]?
    private var path: [String] = []
    /// The record being read and the elements open inside it.
    private var open: [XMLRecords.Element] = []
    private var recordDepth: Int?
    private var ended = false

    /// Reads the records of `text`; `path` names the record elements from the root (nil: the
    /// root's children).
    convenience init(text: String, path: ValuePath?) throws(ResponseRows.Problem) {
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, text.utf8.count))
        _ = bytes.initialize(from: text.utf8)
        try self.init(text: bytes, count: text.utf8.count, source: nil, path: path)
    }

    /// Reads the records of the document `read` hands over: it fills a buffer and returns the
    /// bytes it put there, 0 at the end, or -1 when they cannot be read (it keeps why).
    convenience init(reading read: @escaping (UnsafeMutableRawBufferPointer) -> Int, path: ValuePath?) throws(ResponseRows.Problem) {
        try self.init(text: nil, count: 0, source: Source(read), path: path)
    }

    private init(text: UnsafeMutableBufferPointer<UInt8>?, count: Int, source: Source?, path: ValuePath?) throws(ResponseRows.Problem) {
        switch LibXML2.shared {
        case .success(let loaded): library = loaded
        case .failure(let problem):
            text?.deallocate()
            throw problem
        }
        self.text = text
        self.source = source
        names = path.map { $0.components.map { if case .key(let name) = $0 { name } else { "*" } } }
        let made: LibXML2.Reader?
        if let source {
            let read: LibXML2.InputRead = { context, buffer, length in
                guard let context, let buffer else { return -1 }
                let source = Unmanaged<Source>.fromOpaque(context).takeUnretainedValue()
                return source.fill(UnsafeMutableRawBufferPointer(start: buffer, count: Int(length)))
            }
            made = library.readerForIO(read, nil, Unmanaged.passUnretained(source).toOpaque(), "body.xml", nil, LibXML2.options)
        } else {
            let base = text?.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            made = library.readerForMemory(base, Int32(clamping: count), "body.xml", nil, LibXML2.options)
        }
        guard let made else {
            text?.deallocate()
            throw ResponseRows.Problem(description: "is not XML libxml2 can start reading")
        }
        reader = made
        let handler: LibXML2.ErrorHandler = { argument, message, severity, locator in
            guard let argument, let message else { return }
            let box = Unmanaged<ProblemBox>.fromOpaque(argument).takeUnretainedValue()
            // Severity 1 and 2 are warnings (XML_PARSER_SEVERITY_VALIDITY_WARNING, _WARNING).
            guard severity > 2, box.message == nil else { return }
            box.message = XMLRecords.trimmed(String(cString: message))
            box.line = Int((try? LibXML2.shared.get()).map { $0.locatorLine(locator) } ?? 0)
        }
        library.setErrorHandler(reader, handler, Unmanaged.passUnretained(problem).toOpaque())
    }

    deinit {
        library.free(reader)
        text?.deallocate()
    }

    /// The next record, or `nil` at the end of the document; throws when it is not well-formed
    /// XML (or its bytes could not be read), saying where.
    func next() throws(ResponseRows.Problem) -> Value? {
        func string(_ pointer: UnsafePointer<UInt8>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        while !ended {
            let status = library.read(reader)
            if status == 0 {
                ended = true
                break
            }
            guard status == 1 else {
                ended = true
                if source?.failed == true { throw ResponseRows.Problem(description: "could not be read") }
                let line = problem.line > 0 ? " at line \(problem.line)" : ""
                let reason = problem.message ?? "libxml2 stopped reading"
                throw ResponseRows.Problem(description: "is not well-formed XML\(line): \(reason)")
            }
            var record: Value?
            switch LibXML2.NodeType(rawValue: library.nodeType(reader)) {
            case .element:
                let name = string(library.localName(reader))
                let empty = library.isEmptyElement(reader) == 1
                path.append(name)
                if recordDepth == nil, isRecord(path) { recordDepth = path.count }
                if recordDepth != nil {
                    var element = XMLRecords.Element(name: name)
                    while library.moveToNextAttribute(reader) == 1 {
                        let attribute = string(library.localName(reader))
                        if attribute == "xmlns" || string(library.prefix(reader)) == "xmlns" { continue }
                        element.attributes.append((attribute, string(library.value(reader))))
                    }
                    _ = library.moveToElement(reader)
                    open.append(element)
                }
                if empty {
                    if recordDepth != nil { record = close() }
                    path.removeLast()
                }
            case .endElement:
                if recordDepth != nil { record = close() }
                path.removeLast()
            case .text, .cdata, .significantWhitespace:
                if !open.isEmpty { open[open.count - 1].text += string(library.value(reader)) }
            case nil:
                break
            }
            if let record { return record }
        }
        return nil
    }

    private func isRecord(_ path: [String]) -> Bool {
        guard let names else { return path.count == 2 }
        return path.count == names.count && zip(path, names).allSatisfy { $1 == "*" || $0 == $1 }
    }

    /// Closes the innermost open element: the record when it was the record's own.
    private func close() -> Value? {
        guard let element = open.popLast() else { return nil }
        if open.isEmpty {
            recordDepth = nil
            return element.value
        }
        open[open.count - 1].children.append((element.name, element.value))
        return nil
    }

    private final class ProblemBox: @unchecked Sendable {
        var message: String?
        var line = 0
    }

    /// The reading function libxml2's callback calls, and whether it failed.
    private final class Source {
        let read: (UnsafeMutableRawBufferPointer) -> Int
        private(set) var failed = false

        init(_ read: @escaping (UnsafeMutableRawBufferPointer) -> Int) {
            self.read = read
        }

        func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int32 {
            let count = read(buffer)
            if count < 0 { failed = true }
            return Int32(clamping: count)
        }
    }
}
