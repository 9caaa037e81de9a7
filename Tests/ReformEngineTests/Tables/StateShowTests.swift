import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTestSupport
import Testing

/// `reform state show` lists what a run keeps between runs as a table — per manager and
/// partition, the bookmark, its age when it is a date, the records at it and what the next run
/// does — whether the run keeps it in a state file or, for table outputs, in `_reform_state` of
/// their database; `--json` prints the saved form; `reform state reset` forgets it in either.
@Suite(.timeLimit(.minutes(10)))
struct StateShowTests {
    static func pipeline(_ output: String) -> String {
        """
        reform: 1
        name: tracked
        services: { github: { base_url: "http://127.0.0.1:9" } }
        managers:
          issues: { service: github, path: /issues, incremental: { cursor: updated_at, param: since, key: id } }
          repos: { service: github, path: /repos, incremental: { cursor: pushed, param: since, format: number } }
        reformers:
          issue: { keys: { id: kID }, map: { id: id } }
        runs:
          default: { outputs: [ { reform: [issue], \(output) } ] }
        """
    }

    /// Two managers' state: one bookmark a date with two records at it; one a number, fanned
    /// out, one partition stopped part-way.
    static let managers: Object = [
        "issues": [
            "": ["bookmark": "2026-11-25T10:00:00Z", "edge": ["1\u{0}\"2026-11-25T10:00:00Z\"", "2\u{0}\"2026-11-25T10:00:00Z\""]]
        ],
        "repos": [
            "org-1": ["bookmark": 1_700_000_000, "edge": [], "done": true],
            "org-2": [
                "bookmark": .null, "edge": [],
                "resume": ["request": ["method": "GET", "url": "http://127.0.0.1:9/repos?page=3"], "pages_done": 2],
            ],
        ],
    ]

    static let now = 1_795_773_600  // 2026-11-27T10:00:00Z: the date bookmark is two days old.

    @Test func aStateFileIsListedPerManagerAndPartition() throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("format: ndjson, path: out/issues.ndjson"))
        try harness.write("out/keep.txt", "")
        try StateStore(path: harness.path("out/.tracked.reform-state.json"), document: ["managers": .object(Self.managers)]).save()
        var options = RunOptions()
        options.outputFolder = harness.folder
        let saved = try SavedState.read(try harness.load("p.yaml"), options: options)
        #expect(!saved.inTable)
        #expect(
            saved.text(now: Self.now) == """
                kept in \(harness.path("out/.tracked.reform-state.json"))
                MANAGER  PARTITION  BOOKMARK              AGE         AT BOOKMARK  NEXT RUN
                issues   -          2026-11-25T10:00:00Z  2 days ago  2 records    asks from the bookmark
                repos    org-1      1700000000            -           -            done; asks from the bookmark
                repos    org-2      -                     -           -            resumes after page 2: GET http://127.0.0.1:9/repos?page=3

                """)
        #expect(saved.only(manager: "issues").partitions.map(\.manager) == ["issues"])
    }

    @Test func aTableRunsStateIsReadFromItsDatabaseAndForgottenThere() async throws {
        let folder = try TemporaryFolder()
        _ = try folder.write("p.yaml", Self.pipeline("sqlite: out/issues.db, table: issues, mode: upsert, key: [id], types: { id: int }"))
        _ = try folder.write("out/keep.txt", "")
        let db = try SQLiteFile(folder.path + "/out/issues.db")
        try db.execute(
            #"CREATE TABLE _reform_state (pipeline TEXT NOT NULL, manager TEXT NOT NULL, "partition" TEXT NOT NULL, state TEXT NOT NULL, "#
                + #"PRIMARY KEY (pipeline, manager, "partition")); "#
                + #"INSERT INTO _reform_state VALUES ('tracked', 'issues', '', '{"bookmark": "2026-11-25T10:00:00Z", "edge": []}'), "#
                + #"('tracked', 'repos', 'org-1', '{"bookmark": 17, "edge": []}'), ('other', 'issues', '', '{"bookmark": 1, "edge": []}'), "#
                + #"('tracked', 'repos', 'org-2', '{"bookmark": 18, "edge": []}')"#)
        let show = try await ReformBinary.run(["state", "show", "p.yaml"], environment: [:], in: folder.path)
        #expect(show.status == 0, "\(show.stderr)")
        let lines = show.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "kept in out/issues.db#_reform_state")
        #expect(lines.dropFirst().first?.hasPrefix("MANAGER  PARTITION  BOOKMARK") == true)
        #expect(lines.count == 5, "\(show.stdout)")
        #expect(lines.last?.hasPrefix("repos    org-2      18") == true, "\(show.stdout)")
        let json = try await ReformBinary.run(
            ["state", "show", "p.yaml", "--json", "--manager", "repos"], environment: [:], in: folder.path)
        let document = try JSON.parse(Array(json.stdout.utf8)).objectValue
        #expect(document?["state_table"]?.stringValue == "out/issues.db#_reform_state")
        #expect(document?["managers"]?.objectValue?.keys == ["repos"])
        let reset = try await ReformBinary.run(["state", "reset", "p.yaml", "--manager", "issues"], environment: [:], in: folder.path)
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stderr.contains("reform: state of manager 'issues' reset in out/issues.db#_reform_state"))
        #expect(
            try db.rows("SELECT pipeline, manager FROM _reform_state ORDER BY 1, 2") == [
                "'other'|'issues'", "'tracked'|'repos'", "'tracked'|'repos'",
            ])
        // One partition of a manager.
        let one = try await ReformBinary.run(
            ["state", "reset", "p.yaml", "--manager", "repos", "--partition", "org-1"], environment: [:], in: folder.path)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stderr.contains("reform: state of partition 'org-1' of manager 'repos' reset in out/issues.db#_reform_state"))
        #expect(try db.rows(#"SELECT manager, "partition" FROM _reform_state WHERE pipeline = 'tracked'"#) == ["'repos'|'org-2'"])
        let unknown = try await ReformBinary.run(
            ["state", "reset", "p.yaml", "--manager", "repos", "--partition", "org-3"], environment: [:], in: folder.path)
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.contains(
                "no partition 'org-3' of manager 'repos' in the saved state; did you mean 'org-2'? (its partitions: org-2)"),
            "\(unknown.stderr)")
        let alone = try await ReformBinary.run(["state", "reset", "p.yaml", "--partition", "org-2"], environment: [:], in: folder.path)
        #expect(alone.status == 64 && alone.stderr.contains("--partition needs --manager"), "\(alone.stderr)")
        let all = try await ReformBinary.run(["state", "reset", "p.yaml"], environment: [:], in: folder.path)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(try db.rows("SELECT pipeline FROM _reform_state") == ["'other'"], "another pipeline's state is not this one's")
    }

    @Test func nothingSavedSaysSo() throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("format: ndjson, path: out/issues.ndjson"))
        var options = RunOptions()
        options.outputFolder = harness.folder
        let saved = try SavedState.read(try harness.load("p.yaml"), options: options)
        #expect(saved.text(now: Self.now).hasSuffix("\nnothing saved yet: the next run fetches everything\n"))
    }
}
