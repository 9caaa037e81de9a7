import Foundation
import ReformEngine
import ReformSDK
import ReformSystem
import ReformTestSupport
import Testing

@Suite("Running pipelines", .timeLimit(.minutes(10)))
struct RunnerTests {
    let loader = PipelineLoader(environment: [:])

    func run(_ yaml: String, files: [String: String] = [:], configure: (inout RunOptions, TemporaryFolder) -> Void = { _, _ in })
        throws -> (summary: RunSummary, folder: TemporaryFolder)
    {
        let folder = try TemporaryFolder()
        for (name, text) in files { try folder.write(name, text) }
        let pipeline = try loader.load(path: try folder.write("p.yaml", yaml))
        var options = RunOptions()
        options.outputPath = folder.path + "/out.ndjson"
        options.deadLetterPath = folder.path + "/dead.ndjson"
        configure(&options, folder)
        return (try Runner(pipeline: pipeline, options: options).run(), folder)
    }

    static let listing = """
        reform: 1
        managers: { a: {}, b: {} }
        reformers:
          list:
            keys: { id: kID, name: kName, image: kImage }
            from:
              a: { id: id, name: name, image: "imageUrl?" }
              b: { id: b_id, name: { template: "{b_first} {b_last}" }, image: { path: pic.url, default: "none.png" } }
        runs:
          default: { reform: [list] }
        """

    @Test func batchInputsMapEachManagerIntoTheDeclaredKeysInOrder() throws {
        let (summary, folder) = try run(
            RunnerTests.listing,
            files: [
                "a.ndjson": #"{"name":"Ann","id":1,"extra":true}"# + "\n" + #"{"id":2,"name":"Bo","imageUrl":"x.png"}"# + "\n",
                "b.json": #"[{"b_id":7,"b_first":"Cy","b_last":"Dee","pic":{"url":"c.png"}},{"b_id":8,"b_first":"E","b_last":"F"}]"#,
            ]
        ) { options, folder in
            options.inputs = [("a", folder.path + "/a.ndjson"), ("b", folder.path + "/b.json")]
        }
        #expect(
            try folder.read("out.ndjson") == """
                {"kID":1,"kName":"Ann","kImage":null}
                {"kID":2,"kName":"Bo","kImage":"x.png"}
                {"kID":7,"kName":"Cy Dee","kImage":"c.png"}
                {"kID":8,"kName":"E F","kImage":"none.png"}

                """)
        #expect(summary.recordsIn == 4)
        #expect(summary.rejected == 0)
        #expect(!folder.exists("dead.ndjson"))
    }

    @Test func badRecordsGoToTheDeadLetterFileAndTheRunCarriesOn() throws {
        let (summary, folder) = try run(
            RunnerTests.listing,
            files: [
                "a.ndjson":
                    "{\"id\":1,\"name\":\"Ann\"}\n{\"id\":2,\"unread\":[true]}\n{\"id\":3,\"name\":\n[1,2]\n{\"id\":4,\"name\":\"Di\"}\n"
            ]
        ) { options, folder in
            options.inputs = [("a", folder.path + "/a.ndjson")]
            options.runName = nil
        }
        #expect(
            try folder.read("out.ndjson") == "{\"kID\":1,\"kName\":\"Ann\",\"kImage\":null}\n{\"kID\":4,\"kName\":\"Di\",\"kImage\":null}\n"
        )
        #expect(summary.recordsIn == 5)
        #expect(summary.rejected == 3)
        let dead = try folder.read("dead.ndjson").split(separator: "\n").map(String.init)
        let input = folder.path + "/a.ndjson"
        #expect(
            dead == [
                #"{"manager":"a","sequence":2,"input":"\#(input):2","stage":"reformer 'list'","code":"missing-field","reason":"record has no 'name', needed for key 'name' of reformer 'list'; mark it optional ('name?') or give a default","record":{"id":2,"unread":[true]}}"#,
                #"{"manager":"a","sequence":3,"input":"\#(input):3","stage":"input","code":"invalid-json","reason":"column 16: expected a value, found end of input","text":"{\"id\":3,\"name\":"}"#,
                #"{"manager":"a","sequence":4,"input":"\#(input):4","stage":"reformer 'list'","code":"not-an-object","reason":"reformer 'list' maps fields, so each record must be an object; this one is array","record":[1,2]}"#,
            ])
        #expect(
            summary.description == "reform: 5 in, 2 out, 3 rejected → \(folder.path)/dead.ndjson (batch mode: no --input for b, skipped)")
    }

    @Test func aFailedRunLeavesTheOutputFileUntouched() throws {
        let folder = try TemporaryFolder()
        try folder.write("out.ndjson", "previous\n")
        let pipeline = try loader.load(path: try folder.write("p.yaml", RunnerTests.listing))
        var options = RunOptions()
        options.outputPath = folder.path + "/out.ndjson"
        options.inputs = [("a", folder.path + "/missing.ndjson")]
        #expect(throws: RunError.self) { try Runner(pipeline: pipeline, options: options).run() }
        #expect(try folder.read("out.ndjson") == "previous\n")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("reform-") }
        #expect(leftovers.isEmpty)
    }

    @Test func devicesAreWrittenInPlaceNotReplaced() throws {
        let (summary, _) = try run(RunnerTests.listing, files: ["a.ndjson": "{\"id\":1,\"name\":\"A\"}\n{\"id\":2}\n"]) { options, folder in
            options.inputs = [("a", folder.path + "/a.ndjson")]
            options.outputPath = "/dev/null"
            options.deadLetterPath = "/dev/null"
        }
        #expect(summary.rejected == 1)
        #expect(FileKind.of("/dev/null") == .characterDevice)
    }

    @Test func builtInStepsChainInOrder() throws {
        let yaml = """
            reform: 1
            managers: { shop: {} }
            reformers:
              clean:
                steps:
                  - select: data.items
                  - explode: tags
                  - rename: { tags: tag }
                  - defaults: { city: unknown }
                  - convert: { price: double, sold: date }
                  - set: { label: "{name} ({tag})" }
                  - filter: "price >= 10 and tag in ['a', 'b']"
                  - dedupe: [name, tag]
                  - sort: { by: price, order: desc }
                  - drop: [sold]
                  - limit: 3
                  - pick: [label, price, city]
            runs:
              default: { reform: [clean] }
            """
        let body =
            #"{"data":{"items":[{"name":"x","price":"12.5","sold":"2026-01-02","tags":["a","b","c"]},{"name":"y","price":9,"sold":1767225600,"tags":["a"]},{"name":"z","price":30,"sold":0,"tags":["b","b"],"city":"sh"}]}}"#
        let (_, folder) = try run(yaml, files: ["in.ndjson": body + "\n"]) { options, folder in
            options.inputs = [("shop", folder.path + "/in.ndjson")]
        }
        #expect(
            try folder.read("out.ndjson") == """
                {"label":"z (b)","price":30,"city":"sh"}
                {"label":"x (a)","price":12.5,"city":"unknown"}
                {"label":"x (b)","price":12.5,"city":"unknown"}

                """)
    }

    @Test func oneFetchFeedsSeveralOutputs() throws {
        let yaml =
            RunnerTests.listing.replacingOccurrences(
                of: "  default: { reform: [list] }",
                with: """
                      default:
                        outputs:
                          - { reform: [list], format: csv, path: all.csv }
                          - { reform: [list, named-b], format: ndjson }
                    """) + "\n" + """
                """
        let full = yaml.replacingOccurrences(
            of: "runs:",
            with: """
                  named-b: { steps: [ { filter: "name startswith 'C'" } ] }
                runs:
                """)
        let (summary, folder) = try run(
            full,
            files: ["b.ndjson": "{\"b_id\":1,\"b_first\":\"Cy\",\"b_last\":\"D\"}\n{\"b_id\":2,\"b_first\":\"Ed\",\"b_last\":\"F\"}\n"]
        ) { options, folder in
            options.inputs = [("b", folder.path + "/b.ndjson")]
            options.runName = nil
        }
        _ = summary
        #expect(try String(contentsOfFile: "all.csv", encoding: .utf8) == "kID,kName,kImage\n1,Cy D,none.png\n2,Ed F,none.png\n")
        #expect(try folder.read("out.ndjson") == "{\"kID\":1,\"kName\":\"Cy D\",\"kImage\":\"none.png\"}\n")
        try? FileManager.default.removeItem(atPath: "all.csv")
    }

    @Test func fixturesReplayThroughTheManagersPaging() throws {
        let pipeline = try loader.load(path: ProjectRoot.path + "/Pipelines/property-list.yaml")
        let folder = try TemporaryFolder()
        var options = RunOptions()
        options.outputPath = folder.path + "/out.ndjson"
        options.format = .ndjson
        let summary = try Runner(pipeline: pipeline, options: options).run()
        #expect(summary.landed.map(\.manager) == ["zufang", "xinfang", "ershoufang"])
        #expect(summary.landed.map(\.count) == [7, 4, 6])
        let first = try folder.read("out.ndjson").split(separator: "\n").first.map(String.init)
        #expect(
            first
                == #"{"kPropertyListDataKeyID":101,"kPropertyListDataKeyName":"静安寺精装一居室","kPropertyListDataKeyTitle":"近地铁2号线，拎包入住","kPropertyListDataKeyImage":"https://img.example.com/zufang/101.jpg"}"#
        )
    }

    @Test func aMissingRecordingIsAClearError() throws {
        let pipeline = try loader.load(path: ProjectRoot.path + "/Pipelines/property-list.yaml")
        var options = RunOptions()
        options.params = ["city": "beijing"]
        options.outputPath = try TemporaryFolder().path + "/out"
        #expect {
            try Runner(pipeline: pipeline, options: options).run()
        } throws: { error in
            "\(error)".hasPrefix(
                "manager 'zufang': GET /zufang/list?city=beijing&page=1&page_size=3: no recorded exchange for this request in ")
        }
    }

    @Test func invalidParametersAreRejectedBeforeTakeoff() throws {
        let pipeline = try loader.load(path: ProjectRoot.path + "/Pipelines/property-list.yaml")
        var options = RunOptions()
        options.params = ["city": "Shang Hai", "page_size": "lots"]
        options.outputPath = try TemporaryFolder().path + "/out"
        #expect {
            try Runner(pipeline: pipeline, options: options).run()
        } throws: { error in
            "\(error)"
                == "manager 'zufang': invalid parameters: 'city': 'Shang Hai' does not match the pattern ^[a-z]+$; 'page_size': expected int, got string \"lots\""
        }
    }

    /// A parameter no manager of the run declares was silently ignored: a typo sent nothing.
    @Test func aParameterNoManagerDeclaresIsAnErrorThatSaysWhoTakesWhat() throws {
        let yaml = """
            reform: 1
            managers:
              a: { params: { city: {}, page_size: { default: 3 } } }
              b: { params: { city: {}, page_size: { default: 3 } } }
              c: { params: { since: {} } }
              d: {}
            runs: { default: {}, pair: { managers: [a, d] } }
            """
        let error = #expect(throws: RunError.self) {
            try run(yaml, files: ["in.ndjson": "{}\n"]) { options, folder in
                options.params = ["pagesize": 5]
                options.inputs = [("a", folder.path + "/in.ndjson")]
            }
        }
        #expect(error?.code == .unknownParam)
        #expect(
            error?.message
                == "--param 'pagesize' is not a parameter of any manager of run 'default'; did you mean 'page_size'? "
                + "(a and b take city, page_size; c takes since; d takes none)")
        let other = #expect(throws: RunError.self) {
            try run(yaml, files: ["in.ndjson": "{}\n"]) { options, folder in
                options.runName = "pair"
                options.params = ["since": "2026-01-01"]
                options.inputs = [("a", folder.path + "/in.ndjson")]
            }
        }
        #expect(
            other?.message
                == "--param 'since' is not a parameter of any manager of run 'pair' (a takes city, page_size; d takes none)")
        let fine = try run(yaml, files: ["in.ndjson": "{}\n"]) { options, folder in
            options.params = ["city": "x", "since": "2026-01-01"]
            options.inputs = [("a", folder.path + "/in.ndjson")]
        }
        #expect(fine.summary.landed.map(\.count) == [1])
    }

    @Test func theBatchFastPathWritesExactlyWhatTheGeneralPathWrites() throws {
        let yaml = """
            reform: 1
            managers: { a: {} }
            reformers:
              list: { keys: { id: kID, name: kName, flag: kFlag }, from: { a: { id: id, name: name, flag: flag } } }
            runs:
              default: { reform: [list], output: { format: ndjson } }
            """
        let lines = [
            #"{"id":1,"name":"plain","flag":true,"extra":{"deep":[1,2,{"x":null}]}}"#,
            #"{ "flag" : false , "name" : "spaced" , "id" : 2 }"#,
            #"{"id":3,"name":"esc \"q\" \u00e9 \n","flag":null}"#,
            "{\"id\":4,\"name\":\"del \u{7F}\",\"flag\":true}",
            #"{"id":5.0,"name":"float id","flag":true}"#,
            #"{"id":-0,"name":"minus zero","flag":true}"#,
            #"{"id":1234567890123456789,"name":"big","flag":true}"#,
            #"{"id":1e2,"name":"exp","flag":true}"#,
            #"{"id":7,"name":"dup","name":"dup2","flag":true}"#,
            #"{"id":8,"name":["not","scalar"],"flag":{"a":1}}"#,
            #"{"id":9,"flag":true}"#,
            #"{"id":10,"name":"bad" "flag":true}"#,
            #"[1,2]"#,
            #"{"id":11,"name":"静安寺","flag":false}"#,
            "",
            #"{"id":12,"name":"trailing","flag":true}   "#,
            #"{"id":13,"name":{ "a" : [ 1 , 2.50, "\u4e0a" ] },"flag":1E+2}"#,
        ]
        let input = lines.joined(separator: "\n") + "\n"
        var results: [(String, String, String)] = []
        var fastPathCounts: [Int] = []
        for direct in [true, false] {
            let (summary, folder) = try run(yaml, files: ["a.ndjson": input]) { options, folder in
                options.inputs = [("a", folder.path + "/a.ndjson")]
                options.directWrites = direct
            }
            let dead = try folder.read("dead.ndjson").replacingOccurrences(of: folder.path, with: "<tmp>")
            results.append((try folder.read("out.ndjson"), dead, summary.description.replacingOccurrences(of: folder.path, with: "<tmp>")))
            fastPathCounts.append(summary.writtenDirectly)
        }
        // Every complete, valid object is written by the fast path (values needing re-encoding
        // included); the missing field (line 11), the invalid line (12) and the array (13) are not.
        #expect(fastPathCounts == [13, 0])
        #expect(results[0].0 == results[1].0)
        #expect(results[0].1 == results[1].1)
        #expect(results[0].2 == results[1].2)
        #expect(results[0].0.split(separator: "\n").count == 13)
        #expect(results[0].0.hasSuffix(#"{"kID":13,"kName":{"a":[1,2.5,"上"]},"kFlag":100}"# + "\n"))
        #expect(results[0].2 == "reform: 16 in, 13 out, 3 rejected → <tmp>/dead.ndjson")
    }
}
