// The program scripts/check-url-dependency.sh builds outside the repository: it depends on Reform by
// URL and version, registers a Swift reformer in process and runs a pipeline through the library.
// (Not part of any target here: the script copies it into the consumer package as main.swift.)
import Foundation
import ReformEngine
import ReformSDK

/// Upper-cases the string at one key.
struct Shout: Reformer {
    let key: String

    mutating func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
        guard var object = record.objectValue else { return output.append(record) }
        if let text = object[key]?.stringValue { object[key] = .string(text.uppercased()) }
        output.append(.object(object))
    }
}

/// `plugin: Shout` in a pipeline: registered in process, not loaded from a library.
final class ShoutPlugin: ReformerPlugin {
    let name = "Shout"
    let options = [PluginOption("key", .string, default: "LABEL", doc: "The key to upper-case.")]
    func make(options: PluginOptions) throws(PluginOptionError) -> Shout { Shout(key: try options.string("key")) }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-consumer-\(getpid())").path
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
try """
reform: 1
managers:
  rooms: {}
reformers:
  room: { keys: { id: ID, label: LABEL }, map: { id: id, label: title } }
  loud: { plugin: Shout, options: { key: LABEL } }
runs:
  default: { managers: [rooms], reform: [room, loud], output: { format: ndjson } }
""".write(toFile: folder + "/pipeline.yaml", atomically: true, encoding: .utf8)
try "{\"id\":\"z1\",\"title\":\"Zu-1 room one\"}\n{\"id\":\"z2\",\"title\":\"Zu-2 room two\"}\n"
    .write(toFile: folder + "/rooms.ndjson", atomically: true, encoding: .utf8)

let pipeline = try PipelineLoader(environment: [:], plugins: [ShoutPlugin()]).load(path: folder + "/pipeline.yaml")
var options = RunOptions()
options.inputs = [("rooms", folder + "/rooms.ndjson")]
options.outputPath = folder + "/out.ndjson"
options.deadLetterPath = folder + "/dead.ndjson"
_ = try await Runner(pipeline: pipeline, options: options).run()
print(try String(contentsOfFile: folder + "/out.ndjson", encoding: .utf8), terminator: "")
