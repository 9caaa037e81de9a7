import Hummingbird
import Logging
import NIOCore
import ReformConcurrency
public import ReformEngine
import ReformSDK
import ReformSystem

/// `reform studio`: a local web page that shows a pipeline working, served by this process.
///
/// It listens on 127.0.0.1 only. Every request needs the random token of the URL it prints and a
/// `Host` naming that address (``StudioGuard``); the page loads nothing from elsewhere (its
/// script and style are compiled into the program, and its Content-Security-Policy allows
/// nothing else).
///
/// The page's API, all JSON:
/// - `GET /api/pipeline`: the file's text and when it changed; `GET /api/pipeline/modified`.
/// - `POST /api/check` (the YAML as the body): its diagnostics, and its runs and params.
/// - `PUT /api/pipeline` (the YAML as the body): saves it atomically.
/// - `POST /api/runs` (`{"run", "mode", "params", "inputs"}`, inputs as `{manager: path}` inside the
///   pipeline's folder): starts a run; `GET /api/runs/current`
///   reads it as it goes (``RunWatch``; `?run=ID&changes=N&phase=P`, as last read, answers
///   `{"unchanged": true}` when nothing changed), its pages without their bodies;
///   `GET /api/runs/current/pages/N` is page N with its body; `DELETE /api/runs/current` cancels it.
/// - `GET /api/runs/changes?key=PATH`: what changed in the current run's files since the last
///   run of the same run (``StudioChanges``).
/// - `GET /api/state?run=R`: what its incremental managers remember (`reform state show`'s
///   columns); `POST /api/state/reset` (`{"run", "manager", "partition"}`) forgets it, as `reform state reset`.
public struct StudioServer: Sendable {
    /// The pipeline file.
    public let pipelinePath: String
    /// The port asked for (0: any free one).
    public let port: Int
    /// The token every request must show.
    public let token: String
    /// Where runs write.
    public let scratch: String
    /// The environment `${VAR}`s resolve from.
    public let environment: [String: String]

    /// A studio for the pipeline at `pipelinePath`, on `port` of 127.0.0.1 (0: any free port),
    /// its runs writing under `scratch`; `token` defaults to a new random one.
    public init(pipelinePath: String, port: Int, scratch: String, environment: [String: String], token: String? = nil) {
        self.pipelinePath = pipelinePath
        self.port = port
        self.scratch = scratch
        self.environment = environment
        self.token = token ?? StudioToken.newToken()
    }

    /// The URL to open once listening on `port`.
    public func url(port: Int) -> String { "http://127.0.0.1:\(port)/?token=\(token)" }

    /// Serves until the process is asked to stop (SIGINT, SIGTERM, when `stopsOnSignals`) or the
    /// calling task is cancelled; `onListening` is called with the port once requests are taken.
    /// A run still going when it stops is cancelled.
    public func run(stopsOnSignals: Bool = true, onListening: @escaping @Sendable (Int) async -> Void) async throws {
        let session = StudioSession(path: pipelinePath, scratch: scratch, environment: environment)
        let listening = Guarded(0)
        let router = makeRouter(session: session, port: { listening.withLock { $0 } })
        var logger = Logger(label: "reform-studio")
        // A program that runs the studio in a task of its own stops it by cancelling the task, which
        // Hummingbird reports as errors ("Waiting on child channel: CancellationError"): noise there.
        logger.logLevel = stopsOnSignals ? .warning : .critical
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                listening.withLock { $0 = bound }
                await onListening(bound)
            },
            logger: logger)
        defer { Task { await session.cancel() } }
        do {
            if stopsOnSignals {
                try await app.runService()  // SIGTERM and SIGINT
            } else {
                try await app.runService(gracefulShutdownSignals: [])
            }
        } catch let error as IOError where error.errnoCode == EADDRINUSE || error.errnoCode == EACCES {
            throw StudioStartError(
                message: "cannot listen on 127.0.0.1:\(port): "
                    + (error.errnoCode == EADDRINUSE ? "another program does" : "this user may not use that port")
                    + "; pick another --port, or leave it out for any free one")
        }
    }

    func makeRouter(session: StudioSession, port: @escaping @Sendable () -> Int) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: StudioGuard(token: token, port: port))
        router.get("/") { _, _ in StudioPage.response() }
        router.get("/api/pipeline") { _, _ in
            try await Self.answer {
                let (text, modified) = try await session.file()
                return .object(["path": .string(session.path), "text": .string(text), "modified": .double(modified)])
            }
        }
        router.get("/api/pipeline/modified") { _, _ in
            Self.json(.object(["modified": .double(await session.modified())]))
        }
        router.post("/api/check") { request, _ in
            try await Self.answer {
                let text = try await Self.text(of: request)
                return await session.check(text)
            }
        }
        router.put("/api/pipeline") { request, _ in
            try await Self.answer {
                let text = try await Self.text(of: request)
                let modified = try await session.save(text)
                var answer = await session.check(text)
                if case .object(var object) = answer {
                    object["modified"] = .double(modified)
                    answer = .object(object)
                }
                return answer
            }
        }
        router.post("/api/runs") { request, _ in
            try await Self.answer {
                let asked = try await Self.object(of: request)
                let mode = asked["mode"]?.stringValue.flatMap(SourceMode.init(rawValue:)) ?? .replay
                var params: [String: String] = [:]
                if case .object(let given)? = asked["params"] {
                    for member in given.members {
                        guard let text = member.value.stringValue, !text.isEmpty else { continue }
                        params[member.key] = text
                    }
                }
                var inputs: [String: String] = [:]
                if case .object(let given)? = asked["inputs"] {
                    for member in given.members { inputs[member.key] = member.value.stringValue }
                }
                let id = try await session.start(run: asked["run"]?.stringValue, mode: mode, params: params, inputs: inputs)
                return .object(["id": .int(id)])
            }
        }
        router.get("/api/runs/current") { request, _ in
            let query = request.uri.queryParameters
            let status = await session.status(
                after: query["changes"].flatMap { Int(String($0)) }, phase: query["phase"].map(String.init),
                run: query["run"].flatMap { Int(String($0)) })
            return Self.json(status ?? .object(["phase": .string("none")]))
        }
        router.get("/api/runs/current/pages/:number") { request, context in
            try await Self.answer {
                guard let number = context.parameters.get("number", as: Int.self) else {
                    throw StudioError(status: 400, "a page is asked for by its number")
                }
                return try await session.page(number)
            }
        }
        router.get("/api/runs/changes") { request, _ in
            try await Self.answer {
                try await session.changes(key: request.uri.queryParameters["key"].map(String.init))
            }
        }
        router.get("/api/state") { request, _ in
            try await Self.answer {
                try await session.state(run: request.uri.queryParameters["run"].map(String.init))
            }
        }
        router.post("/api/state/reset") { request, _ in
            try await Self.answer {
                let asked = try await Self.object(of: request)
                return try await session.resetState(
                    run: asked["run"]?.stringValue, manager: asked["manager"]?.stringValue, partition: asked["partition"]?.stringValue)
            }
        }
        router.delete("/api/runs/current") { _, _ in
            await session.cancel()
            return Self.json(.object(["cancelled": .bool(true)]))
        }
        return router
    }

    /// The largest request body taken (a pipeline file).
    static let maxBody = 4 << 20

    static func text(of request: Request) async throws(StudioError) -> String {
        var request = request
        do {
            let buffer = try await request.collectBody(upTo: maxBody)
            return String(buffer: buffer)
        } catch {
            throw StudioError(status: 413, "the body is larger than \(maxBody) bytes, or was cut off")
        }
    }

    static func object(of request: Request) async throws(StudioError) -> Object {
        let text = try await text(of: request)
        guard case .object(let object)? = try? JSON.parse(text) else {
            throw StudioError(status: 400, "the body must be a JSON object")
        }
        return object
    }

    /// `body`'s value as JSON, or its ``StudioError`` as `{"error"}` with the error's status.
    static func answer(_ body: () async throws -> Value) async throws -> Response {
        do {
            return json(try await body())
        } catch let error as StudioError {
            return json(.object(["error": .string(error.message)]), status: error.status)
        }
    }

    static func json(_ value: Value, status: Int = 200) -> Response {
        var bytes: [UInt8] = []
        JSON.write(value, into: &bytes)
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// Why the studio could not start serving, in words a person can act on.
public struct StudioStartError: Error, CustomStringConvertible {
    /// What went wrong and what to do.
    public let message: String
    /// The message.
    public var description: String { message }
}
