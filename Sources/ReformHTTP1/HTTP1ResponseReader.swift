import ReformConcurrency

/// One HTTP/1.x response as it came: status, headers, the body (decoded from chunks), and whether
/// the connection may carry another request.
package struct HTTP1Response {
    /// The status code.
    package var status: Int
    /// Header names (as sent) and values, in order.
    package var headers: [HTTP1Field]
    /// The body bytes.
    package var body: [UInt8]
    /// Whether the server keeps the connection open for the next request.
    package var keepAlive: Bool
}

/// Reads a response from an ``HTTP1Inbox`` (RFC 9112): the status line, the header fields, and a
/// body framed by `Transfer-Encoding: chunked`, `Content-Length` or the end of the connection.
/// Interim 1xx responses are skipped.
enum HTTP1ResponseReader {
    /// The longest line accepted in a head.
    static let lineLimit = 64 << 10
    /// The most bytes accepted for a whole head.
    static let headLimit = 1 << 20
    /// The most interim (1xx) responses accepted before the final one.
    static let maxInterimResponses = 100

    /// Reads the response to a request with `method` by `deadline`, the body at most
    /// `maxBodyBytes` long in memory; a body `sink` accepts goes there instead, of any length.
    static func read(
        _ inbox: inout HTTP1Inbox, from socket: HTTP1Socket, method: String, deadline: Deadline, maxBodyBytes: Int,
        sink: (any HTTP1BodySink)? = nil
    ) throws(HTTP1Failure) -> HTTP1Response {
        var interim = 0
        while true {
            let (status, minor, headers) = try readHead(&inbox, from: socket, deadline: deadline)
            if status == 101 { throw .malformed("101 Switching Protocols was not asked for") }
            if (100..<200).contains(status) {
                // Interim answers that arrive without waiting never reach a read that waits, where
                // the deadline is checked: check it here, and bound how many a server may send.
                interim += 1
                if deadline.pollMilliseconds == 0 { throw .timeout }
                if interim > maxInterimResponses {
                    throw .malformed("more than \(maxInterimResponses) interim (1xx) responses before the answer")
                }
                continue
            }
            let connection = headerList("connection", in: headers) ?? ""
            var keepAlive = minor >= 1 ? !ASCIICase.contains(connection, "close") : ASCIICase.contains(connection, "keep-alive")
            if headerList("transfer-encoding", in: headers) != nil,
                minor == 0 || headerList("content-length", in: headers) != nil
            {
                // RFC 9112 6.1 and 6.3: framing a server may not mean as we read it; never reuse.
                keepAlive = false
            }
            var body: [UInt8] = []
            let framing = try framing(status: status, method: method, headers: headers)
            let sunk = try sink?.accepts(status: status, headers: headers) == true
            // The body goes to the sink, each piece awaited at most its idle time, or into memory
            // up to the limit, by the exchange's deadline.
            var pieceDeadline = sunk ? Deadline.after(seconds: sink?.idleSeconds ?? 0) : deadline
            let bodyDeadline = { pieceDeadline }
            let deliver = { (piece: ArraySlice<UInt8>) throws(HTTP1Failure) -> Void in
                if let sink, sunk {
                    let written = piece.withUnsafeBytes { bytes in Result { () throws(HTTP1Failure) in try sink.write(bytes) } }
                    try written.get()
                    pieceDeadline = Deadline.after(seconds: sink.idleSeconds)
                    return
                }
                guard body.count + piece.count <= maxBodyBytes else { throw .tooLarge }
                body.append(contentsOf: piece)
            }
            switch framing {
            case .none:
                break
            case .length(let length):
                guard sunk || length <= maxBodyBytes else { throw .tooLarge }
                if !sunk { body.reserveCapacity(length) }
                try inbox.take(length, from: socket, deadline: bodyDeadline, to: deliver)
            case .chunked:
                try readChunks(&inbox, from: socket, deadline: bodyDeadline, to: deliver)
            case .untilClosed:
                keepAlive = false
                try inbox.takeUntilClosed(from: socket, deadline: bodyDeadline, to: deliver)
            }
            if let sink, sunk { try sink.finish() }
            return HTTP1Response(status: status, headers: headers, body: body, keepAlive: keepAlive)
        }
    }

    private enum Framing {
        case none
        case length(Int)
        case chunked
        case untilClosed
    }

    private static func readHead(_ inbox: inout HTTP1Inbox, from socket: HTTP1Socket, deadline: Deadline) throws(HTTP1Failure)
        -> (status: Int, minor: Int, headers: [HTTP1Field])
    {
        let statusLine = try inbox.line(from: socket, deadline: deadline, limit: lineLimit)
        let (status, minor) = try parseStatusLine(statusLine)
        var headers: [HTTP1Field] = []
        var size = statusLine.count
        while true {
            let line = try inbox.line(from: socket, deadline: deadline, limit: lineLimit)
            if line.isEmpty { return (status, minor, headers) }
            size += line.count + 2
            guard size <= headLimit else { throw .malformed("the response head is larger than \(headLimit) bytes") }
            if line.first == 0x20 || line.first == 0x09 {
                // Obsolete line folding: the line continues the previous field's value.
                guard !headers.isEmpty else { throw .malformed("the first header line starts with white space") }
                headers[headers.count - 1].value += " " + text(trimmed(line[...]))
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                throw .malformed("a header line has no name and colon: '\(String(text(line).prefix(80)))'")
            }
            let name = line[line.startIndex..<colon]
            guard !name.contains(where: { $0 == 0x20 || $0 == 0x09 }) else {
                throw .malformed("a header name contains white space: '\(text(name))'")
            }
            headers.append(HTTP1Field(name: text(name), value: text(trimmed(line[(colon + 1)...]))))
        }
    }

    private static func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTP1Failure) -> (status: Int, minor: Int) {
        let bytes = Array(line)
        let prefix = Array("HTTP/1.".utf8)
        guard bytes.count >= 12, bytes.starts(with: prefix), (0x30...0x39).contains(bytes[7]), bytes[8] == 0x20,
            bytes[9...11].allSatisfy({ (0x30...0x39).contains($0) }), bytes.count == 12 || bytes[12] == 0x20
        else {
            throw .malformed("the status line is '\(String(text(line).prefix(80)))', not 'HTTP/1.1 CODE REASON'")
        }
        let status = bytes[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard status >= 100 else { throw .malformed("the status code \(status) is below 100") }
        return (status, Int(bytes[7] - 0x30))
    }

    private static func framing(status: Int, method: String, headers: [HTTP1Field]) throws(HTTP1Failure) -> Framing {
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) { return .none }
        if let codings = headerList("transfer-encoding", in: headers) {
            let last = codings.split(separator: ",").last?.trimmingWhitespace().lowercased()
            return last == "chunked" ? .chunked : .untilClosed
        }
        let fields = headers.filter { ASCIICase.equals($0.name, "content-length") }
        if fields.count == 1, let length = wholeNumber(fields[0].value) { return .length(length) }
        let lengths = fields.flatMap { $0.value.split(separator: ",").map { $0.trimmingWhitespace() } }
        guard let first = lengths.first else { return .untilClosed }
        guard let length = Int(first), length >= 0, first.allSatisfy(\.isASCIIDigit), lengths.allSatisfy({ $0 == first })
        else {
            throw .malformed("Content-Length is '\(lengths.joined(separator: ", "))', not one whole number")
        }
        return .length(length)
    }

    private static func readChunks(
        _ inbox: inout HTTP1Inbox, from socket: HTTP1Socket, deadline: () -> Deadline,
        to deliver: (ArraySlice<UInt8>) throws(HTTP1Failure) -> Void
    ) throws(HTTP1Failure) {
        while true {
            let line = try inbox.line(from: socket, deadline: deadline(), limit: lineLimit)
            let digits = trimmed(line.prefix { $0 != UInt8(ascii: ";") })
            guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy(isHexDigit), let size = Int(text(digits), radix: 16) else {
                throw .malformed("a chunk size line is '\(String(text(line).prefix(80)))', not a hexadecimal number")
            }
            if size == 0 {
                // Trailer fields, if any, up to the empty line; they are not kept, and bounded as a
                // head is (audit r2 H5: a server streamed them without end).
                var trailers = 0
                while true {
                    let line = try inbox.line(from: socket, deadline: deadline(), limit: lineLimit)
                    if line.isEmpty { return }
                    trailers += line.count + 2
                    guard trailers <= headLimit else { throw .malformed("the trailer fields are larger than \(headLimit) bytes") }
                }
            }
            try inbox.take(size, from: socket, deadline: deadline, to: deliver)
            guard (try inbox.line(from: socket, deadline: deadline(), limit: lineLimit)).isEmpty else {
                throw .malformed("a chunk is longer than its size line says")
            }
        }
    }

    /// `text` as a number when it is nothing but decimal digits (at most 18).
    private static func wholeNumber(_ text: String) -> Int? {
        guard !text.utf8.isEmpty, text.utf8.count <= 18 else { return nil }
        var number = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return number
    }

    /// Every field called `name` (lower case), ignoring case, joined with `, ` as one list (RFC
    /// 9110 5.3); `nil` when there is none.
    static func headerList(_ name: StaticString, in headers: [HTTP1Field]) -> String? {
        let values = headers.filter { ASCIICase.equals($0.name, name) }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// The value of the first header called `name` (lower case), ignoring case.
    static func headerValue(_ name: StaticString, in headers: [HTTP1Field]) -> String? {
        headers.first { ASCIICase.equals($0.name, name) }?.value
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice.removeLast() }
        return slice
    }

    /// Header bytes as text: UTF-8 when they are valid UTF-8 (what servers mostly mean), else
    /// ISO 8859-1 (what HTTP/1.1 defines), so no byte is lost or refused.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
