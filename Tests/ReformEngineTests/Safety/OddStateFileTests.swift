import Foundation
import ReformSystem
import ReformTestSupport
import Testing

/// A `--state` path that holds something other than a file is refused at once, saying so: a
/// FIFO used to block the run for ever and a folder to fail only after everything was fetched
/// (reliability audit r2 L5).
@Suite(.timeLimit(.minutes(10))) struct OddStateFileTests {
    /// An incremental pipeline over the test server's pages, in `folder`.
    static func pipeline(_ server: TestServer, in folder: TemporaryFolder) throws -> String {
        try folder.write(
            "p.yaml",
            """
            reform: 1
            name: odd
            services:
              s: { base_url: "\(server.url)" }
            managers:
              m:
                service: s
                path: /paged/page
                params: { per_page: 5, total: 7 }
                records: data.items
                paging: { policy: page, param: page, stop: { short_page: per_page } }
                incremental: { cursor: id, param: since, format: number }
            runs:
              default: { output: { format: ndjson, path: out.ndjson } }
            """)
    }

    @Test(arguments: ["fifo", "folder"])
    func aStateThatIsNoFileIsRefusedBeforeAnythingIsFetched(kind: String) async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let path = try Self.pipeline(server, in: folder)
        let state = folder.path + "/state"
        if kind == "fifo" {
            #expect(mkfifo(state, 0o600) == 0)
        } else {
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        }
        let what = kind == "fifo" ? "not a regular file (a FIFO, socket or device)" : "a folder"
        let message = "the state file \(state) is \(what); give --state the path of a file (it need not exist yet)"
        let run = try await ReformBinary.run(["run", path, "--live", "--state", state], environment: [:], in: folder.path)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(try await server.requests(path: "/paged/page").isEmpty, "nothing was fetched")
        let show = try await ReformBinary.run(["state", "show", path, "--state", state], environment: [:], in: folder.path)
        #expect(show.status != 0, "\(show.stdout)")
        #expect(show.stderr.contains(message), "\(show.stderr)")
    }
}
