import Foundation
import ReformSDK
import ReformStudio
import ReformSystem
import ReformTestSupport

/// A studio served by this test process on a free port of 127.0.0.1, and a plain HTTP/1.1 client
/// for it that sends exactly the headers a test gives (a wrong `Host`, no token).
final class StudioUnderTest: Sendable {
    let server: StudioServer
    let port: Int
    private let task: Task<Void, any Error>

    /// Starts a studio on `pipeline`, its runs writing under `scratch`.
    init(pipeline: String, scratch: String, environment: [String: String] = [:]) async throws {
        let server = StudioServer(pipelinePath: pipeline, port: 0, scratch: scratch, environment: environment)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        task = Task {
            try await server.run(stopsOnSignals: false) { port in continuation.yield(port) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw StudioClientError("the studio did not start") }
        self.server = server
        self.port = port
    }

    deinit { task.cancel() }

    /// One exchange: `method path` with `headers` (a `Host` of 127.0.0.1 and the token unless
    /// given otherwise) and `body`; the status, headers (lower-case names) and body.
    func send(
        _ method: String, _ path: String, body: String? = nil, host: String? = nil, token: String?? = .none
    ) async throws -> StudioAnswer {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
        switch token {
        case .none: lines.append("X-Reform-Token: \(server.token)")
        case .some(.some(let given)): lines.append("X-Reform-Token: \(given)")
        case .some(.none): break
        }
        let bytes = Array((body ?? "").utf8)
        if body != nil { lines.append("Content-Length: \(bytes.count)") }
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + bytes
        let port = port
        let raw = try await offPool { try StudioUnderTest.exchange(request, port: port) }
        return try StudioAnswer(raw)
    }

    /// The body of `GET`/`POST`… `path` as JSON, the status checked to be 200.
    func json(_ method: String, _ path: String, body: String? = nil) async throws -> Object {
        let answer = try await send(method, path, body: body)
        guard answer.status == 200, case .object(let object) = try JSON.parse(answer.body) else {
            throw StudioClientError("\(method) \(path): status \(answer.status): \(answer.body)")
        }
        return object
    }

    /// Connects to 127.0.0.1:`port`, sends `request` and reads until the server closes.
    static func exchange(_ request: [UInt8], port: Int, address: String = "127.0.0.1") throws -> [UInt8] {
        let socket = try connected(to: address, port: port)
        defer { close(socket) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { Sockets.send(socket, $0.baseAddress, $0.count) }
            guard count > 0 else { throw StudioClientError("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw StudioClientError("recv: \(String(cString: strerror(errno)))") }
            answer += buffer.prefix(count)
        }
        return answer
    }

    /// A blocking socket connected to `address`:`port` (IPv4), or the error `connect(2)` gave.
    static func connected(to address: String, port: Int) throws -> Int32 {
        let socket = socket(AF_INET, Sockets.streamType, 0)
        guard socket >= 0 else { throw StudioClientError("socket: \(String(cString: strerror(errno)))") }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, address, &target.sin_addr)
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(socket)
            throw StudioClientError("connect to \(address):\(port): \(String(cString: strerror(error)))", errno: error)
        }
        return socket
    }
}

/// A response read whole.
struct StudioAnswer {
    let status: Int
    let headers: [String: String]
    let body: String

    init(_ raw: [UInt8]) throws {
        let text = String(decoding: raw, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw StudioClientError("no header end in: \(text)") }
        let head = text[..<split.lowerBound].split(separator: "\r\n")
        let statusLine = head.first?.split(separator: " ") ?? []
        status = statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
        body = String(text[split.upperBound...])
    }
}

struct StudioClientError: Error, CustomStringConvertible {
    let description: String
    let errno: Int32

    init(_ description: String, errno: Int32 = 0) {
        self.description = description
        self.errno = errno
    }
}
