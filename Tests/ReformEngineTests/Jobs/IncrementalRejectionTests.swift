import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// A bookmark never passes a record that was not written, and no run deletes another's rejected
/// records (reliability audit round 2, issue "Nothing lost, nothing leaked, round 3", item 1).
@Suite(.timeLimit(.minutes(10))) struct IncrementalRejectionTests {
    static func pipeline(userPath: String, output: String = "format: ndjson, path: out/a.ndjson") -> String {
        """
        reform: 1
        name: inc
        services:
          gh: { base_url: "http://gh.test" }
        managers:
          a:
            service: gh
            path: /a
            params: { per_page: 3 }
            paging: { policy: page, param: page, stop: { short_page: per_page } }
            incremental: { cursor: t, param: since, format: number, key: id }
        reformers:
          issue:
            keys: { id: kIssueID, user: kIssueUser }
            from:
              a: { id: id, user: \(userPath) }
        runs:
          default: { managers: [a], reform: [issue], output: { \(output) } }
        """
    }

    static let page = #"[{"id": 1, "t": 5, "user": {"login": "x"}}, {"id": 2, "t": 7, "user": {"login": "y"}}]"#

    @Test func recordsAMappingTypoRejectedAreWrittenByTheRunAfterTheFix() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(userPath: "user.loggin"))
        let first = ScriptedTransport()
        first.on("/a", query: ["page": "1"], .json(Self.page))
        let typo = try await harness.run("pipeline.yaml", transport: first)
        #expect(typo.rejected == 2)
        #expect(typo.warnings.contains { $0.contains("2 records of manager 'a' were rejected, so its bookmark does not move past them") })
        #expect(try harness.lines("reform-dead-letter.ndjson").count == 2)

        try harness.write("pipeline.yaml", Self.pipeline(userPath: "user.login"))
        let second = ScriptedTransport()
        second.on("/a", query: ["page": "1", "since": "5"], .json(Self.page))
        let fixed = try await harness.run("pipeline.yaml", transport: second)
        #expect(second.requestKeys == ["GET /a?page=1&per_page=3&since=5"], "the bookmark stayed at the lowest rejected cursor")
        #expect(fixed.rejected == 0)
        #expect(fixed.alreadyLanded == 0)
        #expect(
            try harness.lines("out/a.ndjson") == [#"{"kIssueID":1,"kIssueUser":"x"}"#, #"{"kIssueID":2,"kIssueUser":"y"}"#])
        // The first run's dead letters are kept, moved aside, and the summary says where.
        #expect(!harness.exists("reform-dead-letter.ndjson"))
        #expect(try harness.lines("reform-dead-letter.ndjson.1").count == 2)
        #expect(fixed.earlierDeadLetter == harness.path("reform-dead-letter.ndjson.1"))
        #expect(fixed.description.contains("the earlier run's dead-letter file was moved to"))
    }

    /// The same with a SQLite table output: the rows the first run rejected are upserted by the
    /// run after the fix, which asks from the lowest rejected cursor.
    @Test func recordsATableOutputRejectedAreWrittenByTheRunAfterTheFix() async throws {
        let harness = try RunHarness()
        let table = "sqlite: out/a.db, table: issues, mode: upsert, key: [id], types: { id: int }"
        try harness.write("pipeline.yaml", Self.pipeline(userPath: "user.loggin", output: table))
        let first = ScriptedTransport()
        first.on("/a", query: ["page": "1"], .json(Self.page))
        let typo = try await harness.run("pipeline.yaml", transport: first)
        #expect(typo.rejected == 2)
        #expect(typo.warnings.contains { $0.contains("2 records of manager 'a' were rejected, so its bookmark does not move past them") })

        try harness.write("pipeline.yaml", Self.pipeline(userPath: "user.login", output: table))
        let second = ScriptedTransport()
        second.on("/a", query: ["page": "1", "since": "5"], .json(Self.page))
        let fixed = try await harness.run("pipeline.yaml", transport: second)
        #expect(second.requestKeys == ["GET /a?page=1&per_page=3&since=5"], "the bookmark stayed at the lowest rejected cursor")
        #expect(fixed.rejected == 0)
        #expect(
            try SQLiteFile(harness.path("out/a.db")).rows("SELECT kIssueID, kIssueUser FROM issues ORDER BY kIssueID") == [
                "1|'x'", "2|'y'",
            ])
    }

    @Test func recordsWrittenAboveARejectedOneAreNotWrittenTwice() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(userPath: "user.login"))
        let first = ScriptedTransport()
        first.on(
            "/a", query: ["page": "1"],
            .json(#"[{"id": 1, "t": 5, "user": {"login": "x"}}, {"id": 2, "t": 7}, {"id": 3, "t": 9, "user": {"login": "z"}}]"#))
        first.on("/a", query: ["page": "2"], .json("[]"))
        let partly = try await harness.run("pipeline.yaml", transport: first)
        #expect(partly.rejected == 1)

        // The API has the record whole now; the next run asks from its cursor and gets both.
        let second = ScriptedTransport()
        second.on(
            "/a", query: ["page": "1", "since": "7"],
            .json(#"[{"id": 2, "t": 7, "user": {"login": "y"}}, {"id": 3, "t": 9, "user": {"login": "z"}}]"#))
        let after = try await harness.run("pipeline.yaml", transport: second)
        #expect(after.rejected == 0)
        #expect(after.alreadyLanded == 1, "record 3 was written by the first run")
        #expect(
            try harness.lines("out/a.ndjson") == [
                #"{"kIssueID":1,"kIssueUser":"x"}"#, #"{"kIssueID":3,"kIssueUser":"z"}"#, #"{"kIssueID":2,"kIssueUser":"y"}"#,
            ])

        // With everything written, the bookmark moves on.
        let third = ScriptedTransport()
        third.on("/a", query: ["page": "1", "since": "9"], .json("[]"))
        _ = try await harness.run("pipeline.yaml", transport: third)
        #expect(third.requestKeys == ["GET /a?page=1&per_page=3&since=9"])
    }

    @Test func recordsOlderThanTheCursorSentAreWarnedAbout() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(userPath: "user.login"))
        let first = ScriptedTransport()
        first.on("/a", query: ["page": "1"], .json(Self.page))
        _ = try await harness.run("pipeline.yaml", transport: first)
        // An API that ignores the parameter (a misspelled one) sends everything again.
        let second = ScriptedTransport()
        second.on("/a", query: ["page": "1", "since": "7"], .json(Self.page))
        let again = try await harness.run("pipeline.yaml", transport: second)
        #expect(again.alreadyLanded == 1)
        #expect(
            again.warnings == [
                "1 record of manager 'a' had a cursor ('t') older than the 'since' the run sent, and were written again: does the API "
                    + "honour 'since'? Check the parameter's name in the API's documentation (an API ignores a parameter it does not know)"
            ])
    }

    @Test func aCleanRunRemovesTheDeadLetterTemporaryFileAKilledRunLeft() async throws {
        let harness = try RunHarness()
        try harness.write(
            "batch.yaml",
            "reform: 1\nmanagers: { m: {} }\nruns: { default: { managers: [m], output: { format: ndjson, path: out.ndjson } } }\n")
        try harness.write("good.ndjson", #"{"id": 1}"# + "\n")
        // What a run killed with SIGKILL while writing dead letters leaves (no process 4194305 runs).
        try harness.write(".reform-dead-letter.ndjson.reform-4194305-AbCdEf", #"{"manager":"m"}"#)
        var options = RunOptions()
        options.inputs = [("m", harness.path("good.ndjson"))]
        let clean = try await harness.run("batch.yaml", options: options)
        #expect(clean.rejected == 0)
        #expect(!harness.exists(".reform-dead-letter.ndjson.reform-4194305-AbCdEf"), "removed by a run that rejected nothing too")
    }

    @Test func aCleanBatchRunMovesAnEarlierDeadLetterFileAsideAndTheLastTenAreKept() async throws {
        let harness = try RunHarness()
        try harness.write(
            "batch.yaml",
            """
            reform: 1
            managers: { m: {} }
            reformers: { r: { keys: { id: kID }, from: { m: { id: id } } } }
            runs: { default: { managers: [m], reform: [r], output: { format: ndjson, path: out.ndjson } } }
            """)
        try harness.write("bad.ndjson", #"{"other": 1}"# + "\n")
        try harness.write("good.ndjson", #"{"id": 1}"# + "\n")
        var bad = RunOptions()
        bad.inputs = [("m", harness.path("bad.ndjson"))]
        var good = RunOptions()
        good.inputs = [("m", harness.path("good.ndjson"))]
        for _ in 0..<12 { _ = try await harness.run("batch.yaml", options: bad) }
        #expect(harness.exists("reform-dead-letter.ndjson"))
        #expect(harness.exists("reform-dead-letter.ndjson.10"))
        #expect(!harness.exists("reform-dead-letter.ndjson.11"))
        let clean = try await harness.run("batch.yaml", options: good)
        #expect(clean.rejected == 0)
        #expect(!harness.exists("reform-dead-letter.ndjson"))
        #expect(try harness.lines("reform-dead-letter.ndjson.1").count == 1)
        #expect(clean.earlierDeadLetter == harness.path("reform-dead-letter.ndjson.1"))
    }
}
