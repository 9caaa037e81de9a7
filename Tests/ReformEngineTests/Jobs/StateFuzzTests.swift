import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformSystem
import ReformTestSupport
import Testing

/// Random mutations of a real state file (one left by a run that stopped at a checkpoint): every
/// next run either resumes correctly or refuses with a message — never a silent empty or
/// duplicated output, never a request to an origin the pipeline does not name (issue "Nothing
/// lost, nothing leaked, round 3", the state fuzzer).
@Suite(.timeLimit(.minutes(10))) struct StateFuzzTests {
    /// A GitHub-like API over two repositories: records with `t >= since`, two a page; the first
    /// request for page 2 of `y` fails once when `failOnce` is set.
    final class Server: Transport, @unchecked Sendable {
        let records: [String: [(id: Int, t: Int)]]
        private let lock = Mutex()
        private var failed = false
        let failOnce: Bool
        private(set) var origins: Set<String> = []

        init(records: [String: [(id: Int, t: Int)]], failOnce: Bool) {
            self.records = records
            self.failOnce = failOnce
        }

        func send(_ request: HTTPRequest, for manager: ManagerRef) async throws(TransportError) -> HTTPResponse {
            let repo = String(request.path.split(separator: "/").last ?? "")
            let query = Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            let page = Int(query["page"] ?? "1") ?? 1
            let since = Int(query["since"] ?? "") ?? Int.min
            let shouldFail = lock.withLock { () -> Bool in
                origins.insert(request.origin ?? request.baseURL ?? "")
                guard failOnce, !failed, repo == "y", page == 2 else { return false }
                failed = true
                return true
            }
            if shouldFail { return HTTPResponse(status: 503, headers: [], body: .object(["message": "down"]), byteCount: 17) }
            let matching = (records[repo] ?? []).filter { $0.t >= since }
            let slice = matching.dropFirst((page - 1) * 2).prefix(2)
            let body = Value.array(slice.map { .object(["id": .int($0.id), "t": .int($0.t)]) })
            return HTTPResponse(
                status: 200, headers: [QueryItem(name: "Content-Type", value: "application/json")], body: body, byteCount: 10)
        }
    }

    /// A tiny lock for the server's counters.
    final class Mutex: @unchecked Sendable {
        private var mutex = pthread_mutex_t()
        init() { pthread_mutex_init(&mutex, nil) }
        func withLock<T>(_ body: () -> T) -> T {
            pthread_mutex_lock(&mutex)
            defer { pthread_mutex_unlock(&mutex) }
            return body()
        }
    }

    static let pipeline = """
        reform: 1
        name: fuzz
        services:
          gh: { base_url: "http://gh.test" }
        managers:
          issues:
            service: gh
            path: /repos/{repo}
            params: { repo: { required: true }, per_page: 2 }
            paging: { policy: page, param: page, stop: { short_page: per_page } }
            for_each: { param: repo, values: [x, y] }
            incremental: { cursor: t, param: since, format: number, key: id, checkpoint: 1 }
        runs:
          default: { managers: [issues], output: { format: ndjson, path: out/issues.ndjson } }
        """

    static let first: [String: [(id: Int, t: Int)]] = ["x": [(1, 1), (2, 2), (3, 3)], "y": [(11, 1), (12, 2)]]
    static let second: [String: [(id: Int, t: Int)]] = [
        "x": [(1, 1), (2, 2), (3, 3), (4, 4)], "y": [(11, 1), (12, 2), (13, 5), (14, 6), (15, 7)],
    ]

    func run(_ harness: RunHarness, _ server: Server) async throws(RunError) -> RunSummary {
        var options = RunOptions()
        options.mode = .live
        options.transport = server
        return try await harness.run("pipeline.yaml", options: options)
    }

    @Test func everyMutatedStateResumesCorrectlyOrIsRefused() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        _ = try await run(harness, Server(records: Self.first, failOnce: false))
        // A run that stops at a checkpoint in the middle of y: the state to mutate.
        await #expect(throws: RunError.self) { try await run(harness, Server(records: Self.second, failOnce: true)) }
        let state = try harness.read("out/.fuzz.reform-state.json")
        let output = try harness.read("out/issues.ndjson")
        #expect(state.contains("\"resume\""))

        // What the stopped run's next run writes with the state as it was.
        _ = try await run(harness, Server(records: Self.second, failOnce: false))
        let expected = try harness.read("out/issues.ndjson")
        #expect(Set(try harness.lines("out/issues.ndjson")).count == 9)

        var random = SeededGenerator(seed: 0x5747_4154_4531)
        var refused = 0
        var resumed = 0
        for trial in 0..<150 {
            let mutated = Self.mutate(state, using: &random)
            try harness.write("out/.fuzz.reform-state.json", mutated)
            try harness.write("out/issues.ndjson", output)
            let server = Server(records: Self.second, failOnce: false)
            do {
                _ = try await run(harness, server)
                resumed += 1
                #expect(try harness.read("out/issues.ndjson") == expected, "trial \(trial): resumed to another output\n\(mutated)")
            } catch {
                refused += 1
                #expect(!error.message.isEmpty)
                #expect(try harness.read("out/issues.ndjson") == output, "trial \(trial): a refused run changed the output")
            }
            #expect(server.origins.isSubset(of: ["http://gh.test"]), "trial \(trial): sent to \(server.origins)")
        }
        #expect(refused + resumed == 150)
        #expect(refused > 0)
    }

    /// `text` with one random change: a byte, or one value of the JSON (replaced, removed, or of
    /// another type).
    static func mutate(_ text: String, using random: inout SeededGenerator) -> String {
        var bytes = Array(text.utf8)
        if Int.random(in: 0..<5, using: &random) == 0 {
            let at = Int.random(in: 0..<bytes.count, using: &random)
            bytes[at] = UInt8.random(in: 32..<127, using: &random)
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let value = try? JSON.parse(bytes) else { return text }
        let mutated = mutateValue(value, using: &random, depth: 0)
        var out: [UInt8] = []
        JSON.writePretty(mutated, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func mutateValue(_ value: Value, using random: inout SeededGenerator, depth: Int) -> Value {
        let replacements: [Value] = [
            .null, .int(0), .int(-1), .int(Int.max), .string(""), .string("x"), .array([]), .object(Object()), .double(1e300),
        ]
        switch value {
        case .object(var object) where !object.keys.isEmpty && (depth == 0 || Bool.random(using: &random)):
            let key = object.keys[Int.random(in: 0..<object.keys.count, using: &random)]
            if Int.random(in: 0..<6, using: &random) == 0 {
                object[key] = nil
            } else if let inner = object[key] {
                object[key] = mutateValue(inner, using: &random, depth: depth + 1)
            }
            return .object(object)
        case .array(var array) where !array.isEmpty && Bool.random(using: &random):
            let index = Int.random(in: 0..<array.count, using: &random)
            if Int.random(in: 0..<6, using: &random) == 0 {
                array.remove(at: index)
            } else {
                array[index] = mutateValue(array[index], using: &random, depth: depth + 1)
            }
            return .array(array)
        case .int(let n) where Bool.random(using: &random):
            return .int(n &+ Int.random(in: -3...3, using: &random))
        default:
            return replacements[Int.random(in: 0..<replacements.count, using: &random)]
        }
    }
}
