import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// The compiled chain (the batch fast path for mappings with templates, conversions, nested paths,
/// then filter/pick/drop/rename/defaults, for explode + pick, and for filters and drops of whole
/// records, which copy the lines in the writer's form) must write exactly what the
/// general path writes, reject the same records with the same reasons, and count the same, on
/// lines made to trip it: escapes, nesting, non-ASCII, floats, duplicate keys, missing fields,
/// failed conversions, invalid JSON.
@Suite("Compiled chains write what the general path writes", .timeLimit(.minutes(10)))
struct CompiledChainTests {
    static let lines = [
        #"{"id":1,"name":"plain","price":"120","when":"2024-05-28T05:21:00+08:00","loc":{"city":"sh","lat":31.25},"ok":true,"tags":["a","b"]}"#,
        #"{ "ok" : false , "name" : "spaced" , "id" : 2 , "price" : 99.5 , "when" : "2024-01-01" , "loc" : { "lat" : 30 , "city" : "bj" } , "tags" : [ ] }"#,
        #"{"id":3,"name":"esc \"q\" \u00e9 \n","price":7,"when":1716848460,"loc":{"city":"s\u4e0a","lat":1e2},"ok":"yes","tags":["x\ty",{"k":[1,2.50]}]}"#,
        "{\"id\":4,\"name\":\"del \u{7F}\",\"price\":1,\"when\":\"2024-02-29T23:59:59Z\",\"loc\":{\"city\":\"c\",\"lat\":0.0001},\"ok\":1,\"tags\":[null]}",
        #"{"id":5.0,"name":"float id","price":"12.5","when":"2024-13-01","loc":{"city":"x","lat":-0.5},"ok":true,"tags":["t"]}"#,
        #"{"id":-0,"name":"minus zero","price":"abc","when":"2024-05-01T10:00:00Z","loc":{"city":"x","lat":31.2},"ok":true,"tags":["t"]}"#,
        #"{"id":1234567890123456789,"name":"big","price":3,"when":"2024-05-01T10:00:00Z","loc":{"city":"x","lat":123456789012.34567},"ok":true,"tags":["t"]}"#,
        #"{"id":7,"name":"dup","name":"dup2","price":4,"when":"2024-05-01 10:00","loc":{"city":"x","city":"y","lat":31.9},"ok":true,"tags":["u","v"]}"#,
        #"{"id":8,"name":["not","scalar"],"price":5,"when":"2024-05-01","loc":"not an object","ok":true,"tags":"not an array"}"#,
        #"{"id":9,"price":6,"when":"2024-05-01","loc":{"lat":31.5},"ok":true,"tags":["t"]}"#,
        #"{"id":10,"name":"bad" "price":1}"#,
        #"[1,2]"#,
        #"{"id":11,"name":"静安寺 · 上海","price":1500,"when":"2024-05-01T23:30:00-02:30","loc":{"city":"上海","lat":31.23},"ok":false,"tags":["地铁","近学校"]}"#,
        "",
        #"{"id":12,"name":null,"price":null,"when":null,"loc":{"city":null,"lat":null},"ok":null,"tags":["t"],"floor":null}   "#,
        #"{"id":13,"name":{ "a" : [ 1 , 2.50, "\u4e0a" ] },"price":1E+2,"when":"2024-05-01T10:00:00.123Z","loc":{"city":"z","lat":31.210},"ok":"off","tags":["\ud83c\udfe0"]}"#,
        #"{"id":14,"name":"n","price":"  42 ","when":"2024-05-01T10:00:00Z","loc":{"city":"z","lat":99999999999999.9},"ok":true,"tags":["t"],"floor":"high"}"#,
        #"{ "id":15, "name":"spaced", "price":1, "when":"2024-05-01", "loc":{"city":"q","lat":32}, "ok":true, "tags":["t"] }"#,
        #"{"id":16,"name":"esc \u00e9","price":2,"when":"2024-05-01","loc":{"city":"q","lat":33},"ok":true,"tags":["t"]}"#,
        // Escapes the writer writes otherwise, in values: rewritten on the compiled path (as is
        // line 15's whitespace).
        #"{"id":17,"name":"https:\/\/x.example\/a","price":3,"when":"2024-05-01","loc":{"city":"\u4E0A\u6d77","lat":31.5},"ok":true,"tags":["\ud83c\udfe0","\ud83d","a\u0041"]}"#,
        "{\"id\":18,\"name\":\"del \u{7F} \\u000A \\u0022 \\/\",\"price\":4,\"when\":\"2024-05-01\",\"loc\":{\"city\":\"c\\/d\",\"lat\":32},\"ok\":true,\"tags\":[],\"floor\":\"\\u00e9\"}",
        // One in a key: left to the general path.
        #"{"id":19,"na\u006de":"key","price":5,"when":"2024-05-01","loc":{"city":"e\/f","lat":33},"ok":true,"tags":["t"]}"#,
    ]

    static let pipeline = """
        reform: 1
        managers: { a: {} }
        reformers:
          floors: { keys: { id: id, floor: floor }, map: { id: id, floor: floor } }
          listing:
            keys: { id: id, label: label, price: price, cents: cents, when: when, city: city, lat: lat, ok: ok, floor: floor, kind: kind }
            map:
              id: id
              label: { template: "{name} · {loc.city} ({floor?})" }
              price: { path: price, convert: double }
              cents: { path: price, convert: int, optional: true }
              when: { path: when, convert: date }
              city: loc.city
              lat: loc.lat
              ok: { path: ok, convert: bool }
              floor: { path: floor, default: unknown }
              kind: { value: listing }
          affordable:
            steps:
              - filter: "price < 1000 and (ok == true or lat >= 31.2) and city != 'y'"
          shaped:
            keys: { id: id, where: where, lat: lat, label: label, extra: extra }
            steps:
              - drop: [cents, kind]
              - rename: { city: where }
              - defaults: { lat: 0, extra: none }
              - convert: { lat: string, id: int, price: int }
              - pick: [id, where, lat, label, extra]
          tagged:
            steps:
              - explode: tags
              - pick: [id, tags, floor]
              - rename: { tags: tag }
              - defaults: { floor: unknown }
              - filter: "tag != 'u'"
          labelled:
            steps:
              - set: { label: "{city} #{id} {lat}", city: "{label}|{ok}", where: "{floor?}/{kind}", note: "{cents?}" }
              - filter: "where != 'low/listing'"
              - set: { note: "{label} {when?}", again: "{note}" }
          arrays:
            keys: { id: id, count: count, first: first, last: last, list: list, joined: joined, ks: ks, kcount: kcount, tag: tag }
            map:
              id: id
              count: { path: tags, array: count }
              first: { path: tags, array: first, default: none, convert: string }
              last: { path: tags, array: last, optional: true }
              list: { path: tags, array: list, optional: true }
              joined: { path: tags, array: join, optional: true }
              ks: { path: "tags[].k", array: list, optional: true }
              kcount: { path: "tags[].k", array: count, default: -1 }
              tag: { path: tags, array: first, optional: true }
          ordered:
            steps:
              - sort: { by: price }
              - dedupe: [city]
          priced:
            steps:
              - filter: "price > 5"
              - convert: { lat: int }
          raw-cheap:
            steps:
              - filter: "ok == true and loc.lat >= 31.2"
          raw-named:
            steps:
              - filter: "not (name == 'dup') and price != 'abc'"
          raw-slim:
            steps:
              - drop: [id, tags, nowhere]
              - filter: "ok == true and id == null"
          raw-trimmed:
            steps:
              - filter: "loc.lat >= 31.2"
              - drop: [loc, floor]
          raw-middle:
            steps:
              - drop: [price, when]
          raw-renamed:
            steps:
              - rename: { name: title, loc: place }
              - filter: "place.lat >= 31.2 and title != 'dup' and name == null"
              - drop: [tags]
          raw-renamed-edges:
            steps:
              - rename: { id: key, tags: labels, ok: floor }
              - drop: [when]
        rows:
          listing-row: { columns: [id, label, price] }
          tag-row: { columns: [id, tag, floor] }
        runs:
          sorted: { reform: [listing, affordable, ordered], output: { format: ndjson } }
          held: { reform: [listing, ordered, priced], output: { format: ndjson } }
          rows: { reform: [listing, affordable], output: { rows: listing-row, format: csv } }
          exploded-rows: { reform: [tagged], output: { rows: tag-row, format: csv } }
          mapped: { reform: [listing], output: { format: ndjson } }
          filtered: { reform: [listing, affordable], output: { format: ndjson } }
          shaped: { reform: [listing, shaped], output: { format: ndjson } }
          exploded: { reform: [tagged], output: { format: ndjson } }
          arrays: { reform: [arrays], output: { format: ndjson } }
          labelled: { reform: [listing, labelled], output: { format: ndjson } }
          raw-filtered: { reform: [raw-cheap], output: { format: ndjson } }
          raw-filtered-twice: { reform: [raw-cheap, raw-named], output: { format: ndjson } }
          raw-dropped: { reform: [raw-slim, raw-trimmed, raw-middle], output: { format: ndjson } }
          raw-dropped-last: { reform: [raw-trimmed], output: { format: ndjson } }
          raw-renamed: { reform: [raw-renamed], output: { format: ndjson } }
          raw-renamed-edges: { reform: [raw-renamed-edges, raw-middle], output: { format: ndjson } }
        """

    /// One run of `runName` over the lines.
    func run(_ runName: String, direct: Bool, jobs: Int = 1) throws -> PathRun {
        try PathRun.run(
            Self.pipeline, lines: Self.lines, runName: runName, direct: direct, jobs: jobs,
            outputName: runName.hasSuffix("rows") ? "out.csv" : "out.ndjson")
    }

    @Test(arguments: [
        "mapped", "filtered", "shaped", "exploded", "arrays", "labelled", "raw-filtered", "raw-filtered-twice", "raw-dropped",
        "raw-dropped-last", "raw-renamed", "raw-renamed-edges",
    ])
    func sameOutputDeadLettersAndCounts(_ runName: String) throws {
        let general = try run(runName, direct: false)
        let compiled = try run(runName, direct: true)
        let parallel = try run(runName, direct: true, jobs: 2)
        #expect(compiled.out == general.out)
        #expect(compiled.dead == general.dead)
        #expect(compiled.summary == general.summary)
        #expect(parallel.out == general.out)
        #expect(parallel.dead == general.dead)
        #expect(parallel.summary == general.summary)
        // --stats counts each reformer's records alike, whichever path they took.
        #expect(compiled.steps == general.steps)
        #expect(parallel.steps == general.steps)
        #expect(!general.steps.isEmpty)
        // Not vacuous: the compiled path wrote records, and some lines were left to the general path.
        #expect(general.direct == 0)
        #expect(compiled.direct > 0)
        #expect(!general.dead.isEmpty)
    }

    /// Filters of whole records write the lines they pass as they came when those are the
    /// writer's own bytes, and the others as the general path prints them: the spaced and
    /// escaped lines come out re-encoded, the plain ones as they were.
    @Test func filtersOfWholeRecordsCopyOnlyTheWritersOwnLines() throws {
        let general = try run("raw-filtered", direct: false)
        let compiled = try run("raw-filtered", direct: true)
        #expect(compiled.out == general.out)
        let out = compiled.out.split(separator: "\n").map(String.init)
        #expect(out.contains(Self.lines[0]), "a plain line is written as it came")
        let reencoded = [
            #"{"id":15,"name":"spaced","price":1,"when":"2024-05-01","loc":{"city":"q","lat":32},"ok":true,"tags":["t"]}"#,
            #"{"id":16,"name":"esc é","price":2,"when":"2024-05-01","loc":{"city":"q","lat":33},"ok":true,"tags":["t"]}"#,
        ]
        for line in reencoded { #expect(out.contains(line)) }
        #expect(compiled.direct > 0)
    }

    /// Lines with whitespace between their members, or whose string values have escapes the
    /// writer writes otherwise (`\/`, `\u4E0A`, a surrogate pair or a lone one, a raw DEL), pass
    /// whole-record filters, drops and renames rewritten, not parsed and printed on the general
    /// path; a line with such an escape in a key is left to the general path.
    @Test(arguments: ["raw-filtered", "raw-dropped-last", "raw-renamed"])
    func spacedAndEscapedLinesAreRewrittenWithoutTheGeneralPath(_ runName: String) throws {
        let rewritable = [Self.lines[17]] + Array(Self.lines[19...21])
        let general = try PathRun.run(Self.pipeline, lines: rewritable, runName: runName, direct: false)
        let compiled = try PathRun.run(Self.pipeline, lines: rewritable, runName: runName, direct: true)
        #expect(compiled.out == general.out)
        #expect(compiled.summary == general.summary)
        #expect(general.out.split(separator: "\n").count == 4)
        #expect(compiled.direct == 3)
    }

    /// A chain the compiled path covers only in part (a sort and dedupe after it, or rows): its
    /// start runs compiled and lands small records for the rest. With `--jobs 2` the workers run
    /// the chain up to the sort (compiled or not) and the landing thread the rest (`held`
    /// rejects records after the sort, on that thread).
    @Test(arguments: ["sorted", "rows", "exploded-rows", "held"])
    func aCompiledStartFeedsTheRestOfTheChain(_ runName: String) throws {
        let general = try run(runName, direct: false)
        for other in [try run(runName, direct: true), try run(runName, direct: true, jobs: 2), try run(runName, direct: false, jobs: 2)] {
            #expect(other.out == general.out)
            #expect(other.dead == general.dead)
            #expect(other.summary == general.summary)
            #expect(other.steps == general.steps)
        }
        #expect(!general.out.isEmpty)
        #expect(!general.dead.isEmpty)
        if runName == "held" {
            #expect(general.dead.contains("reformer 'priced'"), "not vacuous: the part after the sort rejects records")
        }
        if runName.hasSuffix("rows") {
            // Rows after a chain are written from the bytes whole (CompiledChainRows), not only the chain's start.
            #expect(try run(runName, direct: true).direct > 0)
        }
    }

    /// The depth limit counts the record itself: a line one level deeper than `--max-json-depth`
    /// is rejected on the compiled path as on the general one (the compiled path once took it).
    @Test(arguments: [1, 2])
    func aLineDeeperThanTheLimitIsRejectedOnEveryPath(jobs: Int) throws {
        let yaml = """
            reform: 1
            managers: { a: {} }
            reformers:
              ids: { keys: { id: id, z: z }, map: { id: id, z: { path: x.y, optional: true } } }
            runs:
              default: { reform: [ids], output: { format: ndjson } }
            """
        let lines = [#"{"id":1,"x":{"y":[1]}}"#, #"{"id":2,"x":{"y":[[1]]}}"#, #"{"id":3,"x":{"y":{"z":[1]}}}"#, #"{"id":4,"w":[[[1]]]}"#]
        let general = try PathRun.run(yaml, lines: lines, direct: false, maximumDepth: 3)
        let compiled = try PathRun.run(yaml, lines: lines, direct: true, jobs: jobs, maximumDepth: 3)
        #expect(general.out == #"{"id":1,"z":[1]}"# + "\n")
        #expect(compiled.out == general.out)
        #expect(compiled.dead == general.dead)
        #expect(general.dead.split(separator: "\n").count == 3)
    }

    /// The elements of an exploded array are found in the pass that locates the line: the depth
    /// limit still counts the record, the array and each element's own nesting.
    @Test(arguments: [1, 2])
    func anExplodedArrayDeeperThanTheLimitIsRejectedOnEveryPath(jobs: Int) throws {
        let yaml = """
            reform: 1
            managers: { a: {} }
            reformers:
              each: { steps: [ { explode: tags }, { pick: [id, tags] } ] }
            runs:
              default: { reform: [each], output: { format: ndjson } }
            """
        let lines = [
            #"{"id":1,"tags":[1,"a"]}"#, #"{"id":2,"tags":[[1],{"b":2}]}"#, #"{"id":3,"tags":[[[1]]]}"#,
            #"{"id":4,"tags":[1,{"a":[1]}]}"#, #"{"id":5,"tags":[],"tags":[7]}"#, #"{"id":6,"tags":[1,]}"#,
        ]
        let general = try PathRun.run(yaml, lines: lines, direct: false, maximumDepth: 3)
        let compiled = try PathRun.run(yaml, lines: lines, direct: true, jobs: jobs, maximumDepth: 3)
        #expect(general.out.split(separator: "\n").count == 5, "ids 1, 2 (two elements each) and 5 (the last tags)")
        #expect(compiled.out == general.out)
        #expect(compiled.dead == general.dead)
        #expect(general.dead.split(separator: "\n").count == 3)
        #expect(compiled.direct == 5, "not vacuous: the records of the lines within the limit were written compiled")
    }

    @Test func theMappedRecordsReadAsExpected() throws {
        let out = try run("mapped", direct: true).out.split(separator: "\n")
        #expect(
            out.first
                == #"{"id":1,"label":"plain · sh ()","price":120,"cents":120,"when":"2024-05-27T21:21:00Z","city":"sh","lat":31.25,"ok":true,"floor":"unknown","kind":"listing"}"#
        )
        #expect(
            out.contains(
                #"{"id":11,"label":"静安寺 · 上海 · 上海 ()","price":1500,"cents":1500,"when":"2024-05-02T02:00:00Z","city":"上海","lat":31.23,"ok":false,"floor":"unknown","kind":"listing"}"#
            ))
    }
}
