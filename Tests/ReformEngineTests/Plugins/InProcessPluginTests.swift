import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// A program that embeds Reform registers its Swift reformers with `PipelineLoader.plugins`:
/// `plugin: NAME` takes them before any library, with the options checked as for a `.so` plugin.
@Suite(.timeLimit(.minutes(10))) struct InProcessPluginTests {
    /// Upper-cases the string at one key.
    struct Shout: Reformer {
        let key: String

        mutating func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
            guard var object = record.objectValue else {
                output.append(record)
                return
            }
            if let text = object[key]?.stringValue { object[key] = .string(text.uppercased()) }
            output.append(.object(object))
        }
    }

    final class ShoutPlugin: ReformerPlugin {
        let name = "Shout"
        let options = [PluginOption("key", .string, default: "LABEL", doc: "The key to upper-case.")]
        func make(options: PluginOptions) throws(PluginOptionError) -> Shout { Shout(key: try options.string("key")) }
    }

    static func pipeline(options: String) -> String {
        """
        reform: 1
        managers:
          rooms: {}
        reformers:
          room:
            keys: { id: ID, label: LABEL }
            map: { id: id, label: title }
          loud: { plugin: Shout, options: \(options) }
        runs:
          default: { managers: [rooms], reform: [room, loud], output: { format: ndjson, path: out.ndjson } }
        """
    }

    func harness(options: String) throws -> RunHarness {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(options: options))
        try harness.write("rooms.ndjson", #"{"id":"z1","title":"Room one"}"# + "\n" + #"{"id":"z2","title":"Room two"}"# + "\n")
        return harness
    }

    @Test func aRegisteredPluginRunsInTheChain() async throws {
        let harness = try harness(options: "{ key: LABEL }")
        let pipeline = try PipelineLoader(environment: [:], plugins: [ShoutPlugin()]).load(path: harness.path("pipeline.yaml"))
        var options = RunOptions()
        options.inputs = [("rooms", harness.path("rooms.ndjson"))]
        options.outputFolder = harness.folder
        options.deadLetterPath = harness.path("dead.ndjson")
        _ = try await Runner(pipeline: pipeline, options: options).run()
        #expect(try harness.lines("out.ndjson") == [#"{"ID":"z1","LABEL":"ROOM ONE"}"#, #"{"ID":"z2","LABEL":"ROOM TWO"}"#])
    }

    @Test func itsOptionsAreCheckedAtTheirLineAndColumn() throws {
        let harness = try harness(options: "{ kee: LABEL }")
        let error = #expect(throws: PipelineLoadError.self) {
            try PipelineLoader(environment: [:], plugins: [ShoutPlugin()]).load(path: harness.path("pipeline.yaml"))
        }
        #expect(
            error?.description.contains("pipeline.yaml:8:37: error: unknown option 'kee' of plugin 'Shout'; did you mean 'key'?") == true)
    }

    @Test func withoutRegisteringItTheLoaderLooksForALibrary() throws {
        let harness = try harness(options: "{ key: LABEL }")
        let error = #expect(throws: PipelineLoadError.self) {
            try PipelineLoader(environment: [:]).load(path: harness.path("pipeline.yaml"))
        }
        #expect(error?.description.contains("no plugin 'Shout'") == true)
    }
}
