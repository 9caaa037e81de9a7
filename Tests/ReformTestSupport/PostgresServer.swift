import CLibPQ
import Foundation

/// A PostgreSQL server for tests: `REFORM_TEST_POSTGRES_URL` when set, else a throwaway cluster
/// this process makes with the installed `initdb` (Debian's `postgresql` package) in a
/// temporary folder, listening only on a Unix socket there, and stops at exit.
///
/// As root (CI), the cluster runs as the `postgres` system user (`runuser`): PostgreSQL refuses
/// to run as root. Each test asks for a database of its own (``database()``). Without a server,
/// suites are skipped (``isUsable``) unless `REFORM_REQUIRE_POSTGRES=1`, which makes them fail.
public enum PostgresServer {
    /// Why no server could be had.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What is missing and how to get it.
        public let description: String
    }

    /// Whether the Postgres suites run: a server was found or started, or one is required (the
    /// tests then fail saying why there is none).
    public static var isUsable: Bool {
        if case .success = server { return true }
        return required
    }

    /// Whether CI requires the server (`REFORM_REQUIRE_POSTGRES=1`).
    public static var required: Bool { ProcessInfo.processInfo.environment["REFORM_REQUIRE_POSTGRES"] == "1" }

    /// A fresh, empty database on the server; its URL has no password (the cluster trusts local
    /// connections).
    public static func database() throws -> PostgresDatabase {
        let admin = try server.get()
        let name = "reform_test_" + UUID().uuidString.lowercased().replacing("-", with: "").prefix(16)
        let client = try PostgresClient(url: admin.url(database: admin.database))
        try client.execute("CREATE DATABASE \"\(name)\"")
        return PostgresDatabase(url: admin.url(database: name))
    }

    /// Where the server is: a URL whose database part can be changed.
    struct Address: Sendable {
        /// The URL before the database name (`postgresql://user@host:port/`) and after it (`?…`).
        let before: String
        let after: String
        let database: String

        func url(database: String) -> String { before + database + after }
    }

    /// Made once, when the suites' `.enabled(if: isUsable)` conditions are first evaluated: Swift
    /// Testing does that while it plans the run, before any test starts, so the cluster's `initdb`
    /// and `pg_ctl start` (seconds) hold no test's thread (the first Postgres test of a run takes
    /// 0.2 s, not the cluster's start). A suite that asks for a database must keep that condition.
    static let server: Result<Address, Unavailable> = {
        if let given = ProcessInfo.processInfo.environment["REFORM_TEST_POSTGRES_URL"], !given.isEmpty {
            return parse(given)
        }
        return startCluster()
    }()

    private static func parse(_ url: String) -> Result<Address, Unavailable> {
        guard let scheme = url.range(of: "://") else {
            return .failure(Unavailable(description: "REFORM_TEST_POSTGRES_URL must be a postgresql:// URL, not \(url)"))
        }
        let rest = url[scheme.upperBound...]
        let query = rest.firstIndex(of: "?") ?? rest.endIndex
        let slash = rest[..<query].firstIndex(of: "/")
        let before = String(url[..<(slash.map { rest.index(after: $0) } ?? query)]) + (slash == nil ? "/" : "")
        let database = slash.map { String(rest[rest.index(after: $0)..<query]) } ?? ""
        return .success(Address(before: before, after: String(rest[query...]), database: database.isEmpty ? "postgres" : database))
    }

    /// The folder of the throwaway cluster, removed at exit.
    nonisolated(unsafe) private static var clusterFolder: String?
    nonisolated(unsafe) private static var clusterTools: (pgCtl: String, asUser: [String])?

    private static func startCluster() -> Result<Address, Unavailable> {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            return .failure(
                Unavailable(
                    description: "no PostgreSQL server is installed (apt-get install postgresql libpq-dev), "
                        + "and REFORM_TEST_POSTGRES_URL is not set"))
        }
        let bin = "/usr/lib/postgresql/\(version)/bin"
        stopAbandonedClusters(pgCtl: bin + "/pg_ctl")
        var template = Array("/tmp/reform-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return .failure(Unavailable(description: "cannot make a temporary folder")) }
        let folder = String(cString: made)
        var asUser: [String] = []
        if getuid() == 0 {
            // PostgreSQL refuses to run as root: the cluster belongs to the `postgres` user.
            guard let user = getpwnam("postgres") else {
                return .failure(Unavailable(description: "running as root and there is no 'postgres' user to run the server as"))
            }
            chown(folder, user.pointee.pw_uid, user.pointee.pw_gid)
            asUser = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        }
        let data = folder + "/data"
        let initdb = run(
            asUser + [bin + "/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
        guard initdb.status == 0 else { return .failure(Unavailable(description: "initdb failed: \(initdb.output)")) }
        let options = "-c listen_addresses='' -k \(folder) -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        let start = run(asUser + [bin + "/pg_ctl", "-D", data, "-o", options, "-l", folder + "/log", "-w", "start"])
        guard start.status == 0 else {
            let log = (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? ""
            return .failure(Unavailable(description: "pg_ctl start failed: \(start.output) \(log)"))
        }
        try? String(getpid()).write(toFile: folder + "/owner.pid", atomically: true, encoding: .utf8)
        clusterFolder = folder
        clusterTools = (bin + "/pg_ctl", asUser)
        atexit {
            guard let folder = PostgresServer.clusterFolder, let tools = PostgresServer.clusterTools else { return }
            _ = PostgresServer.run(tools.asUser + [tools.pgCtl, "-D", folder + "/data", "-m", "immediate", "stop"])
            try? FileManager.default.removeItem(atPath: folder)
        }
        return .success(Address(before: "postgresql://postgres@/", after: "?host=\(folder)", database: "postgres"))
    }

    /// Stops and removes the clusters of test processes that were killed before they could
    /// (their `owner.pid` is gone).
    private static func stopAbandonedClusters(pgCtl: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in names where name.hasPrefix("reform-pg-") {
            let folder = "/tmp/" + name
            guard let text = try? String(contentsOfFile: folder + "/owner.pid", encoding: .utf8), let owner = Int32(text),
                kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            let asUser = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
            run(asUser + [pgCtl, "-D", folder + "/data", "-m", "immediate", "stop"])
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Runs `arguments` and waits (``Spawn``: test threads block SIGTERM and SIGINT, which the
    /// server must not inherit); its output goes to a file, not a pipe: the server `pg_ctl`
    /// starts would hold a pipe open.
    @discardableResult
    static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let log = NSTemporaryDirectory() + "reform-pg-" + UUID().uuidString + ".log"
        let descriptor = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer {
            close(descriptor)
            unlink(log)
        }
        let status: Int32
        do { status = Spawn.wait(try Spawn.start(arguments, stdout: descriptor, stderr: descriptor)) } catch {
            return (-1, "\(error)")
        }
        return (status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }
}

/// One test's database: its URL, and a client to check its tables with.
public struct PostgresDatabase: Sendable {
    /// The URL reform connects with (`postgresql://postgres@/reform_test_…?host=/tmp/…`).
    public let url: String

    /// The URL with a password put in it (which the throwaway cluster ignores): for redaction tests.
    public func url(password: String) -> String {
        url.replacing("postgresql://postgres@", with: "postgresql://postgres:\(password)@")
    }

    /// A new connection to the database.
    public func client() throws -> PostgresClient { try PostgresClient(url: url) }
}

/// A minimal libpq client for tests: run SQL, read rows as text.
public final class PostgresClient {
    private let handle: OpaquePointer

    /// Connects to `url`.
    public init(url: String) throws {
        guard let connection = PQconnectdb(url), PQstatus(connection) == CONNECTION_OK else {
            throw PostgresServer.Unavailable(description: "cannot connect to \(url)")
        }
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// Runs `sql`, throwing the server's message when it fails.
    public func execute(_ sql: String) throws {
        _ = try rows(sql)
    }

    /// The rows of `sql`, each as its values joined by `|` (`NULL` for null).
    public func rows(_ sql: String) throws -> [String] {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw PostgresServer.Unavailable(description: String(cString: PQresultErrorMessage(result)))
        }
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { column in
                PQgetisnull(result, row, column) == 1 ? "NULL" : String(cString: PQgetvalue(result, row, column))
            }.joined(separator: "|")
        }
    }
}
