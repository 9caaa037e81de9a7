import Foundation
import ReformTestSupport
import Testing

/// Plugins through the command line, with real libraries built by ``PluginBuilds``: running a
/// pipeline that uses them, listing them, every loader failure, and a package scaffolded outside
/// the repository.
@Suite("reform plugins", .timeLimit(.minutes(10)), .serialized)
struct PluginTests {
    static let brokenLibraries = CLIRunner.projectRoot + "/" + PluginBuilds.broken + "/.build/debug"

    func snapshot(_ name: String, _ arguments: [String], environment: [String: String] = [:], replacing: [String: String] = [:])
        async throws
    {
        let failures = await PluginBuilds.failures
        try #require(failures.isEmpty, "\(failures)")
        let result = try await CLIRunner.run(arguments, environment: environment)
        let transcript = Snapshot.transcript(
            arguments, result,
            replacing: replacing.merging(["x86_64-unknown-linux-gnu/": "", "aarch64-unknown-linux-gnu/": ""]) { a, _ in a })
        #expect(try Snapshot.matches(name, transcript), "\(transcript)")
    }

    @Test func runsAPipelineThroughBothPlugins() async throws {
        try await snapshot("plugins-run-listings", ["run", "Pipelines/listings-plugins.yaml"])
    }

    @Test func pluginOutputEqualsTheYAMLMappingsOutput() async throws {
        let failures = await PluginBuilds.failures
        try #require(failures.isEmpty, "\(failures)")
        let plugin = try await CLIRunner.run([
            "run", "Pipelines/listings-plugins.yaml", "--run", "property-list", "--format", "ndjson", "--quiet",
        ])
        let mapping = try await CLIRunner.run(["run", "Pipelines/property-list.yaml", "--format", "ndjson", "--quiet"])
        #expect(plugin.status == 0 && mapping.status == 0, "\(plugin.stderr)\(mapping.stderr)")
        #expect(!plugin.stdout.isEmpty && plugin.stdout == mapping.stdout)
    }

    @Test func listsBuiltInStepsAndPluginsWithTheirOptions() async throws {
        // The newest build is listed; which one that is depends on what was built last.
        try await snapshot(
            "plugins-list", ["plugins"], replacing: ["/.build/debug/": "/.build/<config>/", "/.build/release/": "/.build/<config>/"])
    }

    @Test func printsEachPluginsOptionsAsAJSONSchemaForEditors() async throws {
        let failures = await PluginBuilds.failures
        try #require(failures.isEmpty, "\(failures)")
        let listed = try await CLIRunner.run(["plugins", "--schema"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let schemas = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let thumbnail = try #require(schemas["ThumbnailURL"] as? [String: Any], "\(listed.stdout)")
        #expect(thumbnail["additionalProperties"] as? Bool == false)
        let width = try #require((thumbnail["properties"] as? [String: Any])?["width"] as? [String: Any])
        #expect(width["type"] as? String == "integer" && width["default"] as? Int == 200)
        #expect(width["description"] as? String == "Thumbnail width in pixels, 1 to 4096.")

        // The pipeline schema with --plugins applies it where `plugin: ThumbnailURL` is written.
        let pipeline = try await CLIRunner.run(["schema", "--plugins"])
        #expect(pipeline.status == 0, "\(pipeline.stderr)")
        #expect(pipeline.stdout.contains("\"const\": \"ThumbnailURL\""), "\(pipeline.stdout.prefix(400))")
    }

    @Test func reportsBadOptionsAtTheirLineAndColumn() async throws {
        try await snapshot("plugins-bad-options", ["validate", "Tests/ReformCLITests/Inputs/plugin-bad-options.yaml"])
    }

    @Test func saysWhatToRunForEachLoadFailure() async throws {
        let unbuilt = FileManager.default.temporaryDirectory.appendingPathComponent("reform-unbuilt-\(getpid())")
        try FileManager.default.createDirectory(at: unbuilt.appendingPathComponent("Unbuilt"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: unbuilt) }
        try Data().write(to: unbuilt.appendingPathComponent("Unbuilt/Package.swift"))
        try await snapshot(
            "plugins-load-failures", ["validate", "Tests/ReformCLITests/Inputs/plugin-load-failures.yaml"],
            environment: ["REFORM_PLUGIN_PATH": "\(Self.brokenLibraries):\(unbuilt.path)"], replacing: [unbuilt.path: "<tmp>"])
    }

    @Test func keysCheckFailsWhenAGeneratedFileIsOutOfDate() async throws {
        let current = "Plugins/PropertyListReformer/Sources/PropertyListReformer/PropertyListKeys.swift"
        let fresh = try await CLIRunner.run(["keys", "Pipelines/property-list.yaml", "--swift", "--check", current])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-keys-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = try await CLIRunner.run(["keys", "Pipelines/property-list.yaml", "--swift", "--output", folder.path])
        #expect(written.status == 0 && written.stdout == folder.path + "/PropertyListKeys.swift\n", "\(written.stderr)")
        let stale = folder.appendingPathComponent("PropertyListKeys.swift")
        try (String(contentsOf: stale, encoding: .utf8) + "public let kExtra = \"kExtra\"\n").write(
            to: stale, atomically: true, encoding: .utf8)
        let check = try await CLIRunner.run(["keys", "Pipelines/property-list.yaml", "--swift", "--check", stale.path])
        #expect(check.status == 1)
        #expect(check.stderr.contains("PropertyListKeys.swift:1:1: error: out of date with Pipelines/property-list.yaml"))
    }

    /// What a new user does with the README, outside the repository: scaffold, build and test,
    /// then use the plugin from a pipeline.
    @Test func scaffoldedPluginOutsideTheRepositoryBuildsPassesAndRuns() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-scaffold-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let created = try await CLIRunner.run(["plugins", "new", "Shout", "--output", folder.path])
        #expect(created.status == 0, "\(created.stderr)")
        let manifest = try String(contentsOf: folder.appendingPathComponent("Shout/Package.swift"), encoding: .utf8)
        #expect(manifest.contains(".package(path: \"\(CLIRunner.projectRoot)/SDK\")"))
        let tested = await PluginBuilds.swift(["test", "--package-path", folder.appendingPathComponent("Shout").path])
        #expect(tested.status == 0, "\(tested.output)")
        #expect(tested.output.contains("Test conforms() passed"))
        let pipeline = folder.appendingPathComponent("shout.yaml")
        try """
        reform: 1
        name: shout
        plugin_paths: [.]
        managers:
          listings: { records: list }
        reformers:
          loud: { plugin: Shout, options: { key: name } }
        runs:
          default: { reform: [loud], output: { format: ndjson } }

        """.write(to: pipeline, atomically: true, encoding: .utf8)
        let run = try await CLIRunner.run(
            ["run", pipeline.path, "--input", "listings=-", "--quiet"], stdin: "{\"id\":1,\"name\":\"Shanghai\"}\n")
        #expect(run.stdout == "{\"id\":1,\"name\":\"SHANGHAI\"}\n", "\(run.stderr)")
    }
}
