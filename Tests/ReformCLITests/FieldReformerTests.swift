import Foundation
import ReformTestSupport
import Testing

/// A ``FieldReformer`` plugin (PropertyListReformer) on the batch fast path, where its fields are
/// handed over as the input line's text and written straight out, against the general path, where
/// it gets values: the output, dead letters and counts must not tell them apart.
@Suite("field reformer fast path", .timeLimit(.minutes(10)), .serialized)
struct FieldReformerTests {
    /// Lines that exercise every way a field can stand in the input and every way a line can fail.
    static let lines = [
        #"{"id":1,"name":"plain","title":"t","imageUrl":"https://x/1.jpg","extra":{"deep":[1,2,{"x":null}]}}"#,
        #"{ "imageUrl" : "u2" , "title" : "spaced" , "name" : "n2", "id" : 2 }"#,
        #"{"id":3,"name":"esc \"q\" \u00e9 \n","title":"t3","imageUrl":"u3"}"#,
        #"{"id":4.50,"name":"float id","title":1e2,"imageUrl":null}"#,
        #"{"id":5,"name":"dup","name":"dup2","title":[1,{"a":"上"}],"imageUrl":"u5"}"#,
        #"{"id":6,"title":"no name","imageUrl":"u6"}"#,
        #"{"id":7,"name":"bad" "title":"x","imageUrl":"u7"}"#,
        #"[1,2]"#,
        #"{"id":8,"name":"静安寺","title":"标题","imageUrl":"u8"}"#,
        "{\"id\":-0,\"name\":\"del \u{7F}\",\"title\":\"t9\",\"imageUrl\":\"u9\"}",
    ]

    /// A temporary folder holding the test pipeline (outputs written inside it) and the input.
    struct Workspace {
        let folder: URL
        var pipeline: String { folder.appendingPathComponent("field-reformer.yaml").path }
        var input: String { folder.appendingPathComponent("zufang.ndjson").path }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func read(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-field-\(getpid())-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let template = try String(
                contentsOfFile: CLIRunner.projectRoot + "/Tests/ReformCLITests/Inputs/field-reformer.yaml", encoding: .utf8)
            try template.replacingOccurrences(of: "path: general.ndjson", with: "path: \(path("general.ndjson"))")
                .replacingOccurrences(of: "path: copy.ndjson", with: "path: \(path("copy.ndjson"))")
                .write(toFile: pipeline, atomically: true, encoding: .utf8)
            try (FieldReformerTests.lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        }
    }

    @Test func fastPathWritesWhatTheGeneralPathWrites() async throws {
        let failures = await PluginBuilds.failures
        try #require(failures.isEmpty, "\(failures)")
        let work = try Workspace()
        defer { try? FileManager.default.removeItem(at: work.folder) }
        let fast = try await CLIRunner.run([
            "run", work.pipeline, "--allow-outside-paths", "--run", "fast", "--input", "zufang=\(work.input)", "--output",
            work.path("fast.ndjson"),
            "--dead-letter", work.path("fast.dead"), "--stats", "json",
        ])
        let general = try await CLIRunner.run([
            "run", work.pipeline, "--allow-outside-paths", "--run", "general", "--input", "zufang=\(work.input)", "--dead-letter",
            work.path("general.dead"),
        ])
        #expect(fast.status == 3 && general.status == 3, "\(fast.stderr)\(general.stderr)")
        let output = try work.read("fast.ndjson")
        #expect(output == (try work.read("general.ndjson")))
        #expect(output == (try work.read("copy.ndjson")))
        // Seven good lines; the fast path wrote all of them (plain, spaced, escaped, floats, nested,
        // duplicate keys, non-ASCII, DEL and minus zero), so none of them fell back.
        #expect(fast.stderr.contains(#""written_directly":7"#), "\(fast.stderr)")
        #expect(fast.stderr.hasPrefix("reform: 10 in, 7 out, 3 rejected"), "\(fast.stderr)")
        let expected = [
            #"{"kPropertyListDataKeyID":1,"kPropertyListDataKeyName":"plain","kPropertyListDataKeyTitle":"t","kPropertyListDataKeyImage":"https://x/1.jpg"}"#,
            #"{"kPropertyListDataKeyID":2,"kPropertyListDataKeyName":"n2","kPropertyListDataKeyTitle":"spaced","kPropertyListDataKeyImage":"u2"}"#,
            #"{"kPropertyListDataKeyID":3,"kPropertyListDataKeyName":"esc \"q\" é \n","kPropertyListDataKeyTitle":"t3","kPropertyListDataKeyImage":"u3"}"#,
            #"{"kPropertyListDataKeyID":4.5,"kPropertyListDataKeyName":"float id","kPropertyListDataKeyTitle":100,"kPropertyListDataKeyImage":null}"#,
            #"{"kPropertyListDataKeyID":5,"kPropertyListDataKeyName":"dup2","kPropertyListDataKeyTitle":[1,{"a":"上"}],"kPropertyListDataKeyImage":"u5"}"#,
            #"{"kPropertyListDataKeyID":8,"kPropertyListDataKeyName":"静安寺","kPropertyListDataKeyTitle":"标题","kPropertyListDataKeyImage":"u8"}"#,
            "{\"kPropertyListDataKeyID\":-0,\"kPropertyListDataKeyName\":\"del \\u007f\",\"kPropertyListDataKeyTitle\":\"t9\",\"kPropertyListDataKeyImage\":\"u9\"}",
        ]
        #expect(output == expected.joined(separator: "\n") + "\n")
        // The same rejections, with the whole record, whichever path met the line first; the
        // general run rejects each record once per output, so compare its first output's entries.
        let fastDead = try work.read("fast.dead").split(separator: "\n")
        let generalDead = try work.read("general.dead").split(separator: "\n")
            .filter { !$0.contains("copy.ndjson") }
            .map { $0.replacingOccurrences(of: " (output \(work.path("general.ndjson")))", with: "") }
        #expect(fastDead.map(String.init) == generalDead)
        #expect(fastDead.count == 3)
        #expect(
            fastDead[0].contains(
                #""code":"missing-field","reason":"listing from 'zufang' has no 'name' (for kPropertyListDataKeyName); set option strict: false to emit null instead","record":{"id":6,"title":"no name","imageUrl":"u6"}"#
            ))
        #expect(fastDead[1].contains(#""stage":"input","code":"invalid-json""#))
        #expect(fastDead[2].contains(#""code":"not-an-object""#) && fastDead[2].contains(#""record":[1,2]"#))
    }

    @Test func lenientOptionFillsMissingFieldsWithNullOnTheFastPath() async throws {
        let failures = await PluginBuilds.failures
        try #require(failures.isEmpty, "\(failures)")
        let work = try Workspace()
        defer { try? FileManager.default.removeItem(at: work.folder) }
        let run = try await CLIRunner.run([
            "run", work.pipeline, "--allow-outside-paths", "--run", "lenient", "--input", "zufang=\(work.input)", "--quiet",
            "--dead-letter", work.path("lenient.dead"),
        ])
        #expect(run.status == 3, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 8)
        #expect(
            lines[5]
                == #"{"kPropertyListDataKeyID":6,"kPropertyListDataKeyName":null,"kPropertyListDataKeyTitle":"no name","kPropertyListDataKeyImage":"u6"}"#
        )
    }
}
