import Foundation
import ReformTestSupport
import Testing

/// `reform schema`: the committed schema files are its output, every shipped pipeline and test file
/// points at them, and the schema lists exactly the keys the loader accepts, shape by shape.
@Suite("reform schema", .timeLimit(.minutes(10)))
struct SchemaTests {
    /// The schema `reform schema ARGUMENTS` prints, parsed.
    func schema(_ arguments: [String] = []) async throws -> (text: String, document: [String: Any]) {
        let result = try await CLIRunner.run(["schema"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (result.stdout, document)
    }

    /// The property names of the mapping at `pointer` (`#/$defs/manager`, `#` for the top level).
    func keys(_ document: [String: Any], _ pointer: String) throws -> [String] {
        var node: Any = document
        for part in pointer.split(separator: "/").dropFirst() {
            if let index = Int(part), let list = node as? [Any], list.indices.contains(index) {
                node = list[index]
            } else {
                node = try #require((node as? [String: Any])?[String(part)], "no \(pointer) in the schema")
            }
        }
        let properties = try #require((node as? [String: Any])?["properties"] as? [String: Any], "\(pointer) has no properties")
        return properties.keys.sorted()
    }

    /// Every `unknown key 'zz_unknown' in WHAT; expected one of: A, B` the loader reported, by WHAT.
    func acceptedKeys(in stderr: String) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for line in stderr.split(separator: "\n") {
            guard let start = line.range(of: "unknown key 'zz_unknown' in "), let list = line.range(of: "; expected one of: ")
            else { continue }
            let what = String(line[start.upperBound..<list.lowerBound])
            out[what] = line[list.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.sorted()
        }
        return out
    }

    @Test func theCommittedSchemaFilesAreWhatReformSchemaPrints() async throws {
        let pipeline = try await schema()
        let tests = try await schema(["--tests"])
        let folder = CLIRunner.projectRoot + "/schema/"
        #expect(try String(contentsOfFile: folder + "pipeline.schema.json", encoding: .utf8) == pipeline.text)
        #expect(try String(contentsOfFile: folder + "pipeline-tests.schema.json", encoding: .utf8) == tests.text)
        #expect(pipeline.document["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test func everyShippedPipelineAndTestFileNamesItsSchema() throws {
        let folder = CLIRunner.projectRoot + "/Pipelines/"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yaml") }
        #expect(files.count >= 2)
        for file in files {
            let first = try String(contentsOfFile: folder + file, encoding: .utf8).prefix { $0 != "\n" }
            let schema = file.hasSuffix(".test.yaml") ? "pipeline-tests" : "pipeline"
            #expect(first == "# yaml-language-server: $schema=../schema/\(schema).schema.json", "\(file)")
        }
    }

    @Test func theSchemaListsTheKeysThePipelineLoaderAccepts() async throws {
        let (_, document) = try await schema()
        let result = try await CLIRunner.run(["validate", "-"], stdin: SchemaProbe.pipeline)
        #expect(result.status == 2)
        let accepted = acceptedKeys(in: result.stderr)
        for (what, pointer) in SchemaProbe.pipelinePlaces {
            let listed = try #require(accepted[what], "no unknown-key error for \(what) in:\n\(result.stderr)")
            #expect(listed == (try keys(document, pointer)), "\(what) against \(pointer)")
        }
    }

    @Test func theTestSchemaListsTheKeysTheTestLoaderAccepts() async throws {
        let (_, document) = try await schema(["--tests"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-schema-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try SchemaProbe.minimalPipeline.write(toFile: folder + "/probe.yaml", atomically: true, encoding: .utf8)
        try SchemaProbe.testFile.write(toFile: folder + "/probe.test.yaml", atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run(["validate", folder + "/probe.test.yaml"])
        #expect(result.status == 2)
        let accepted = acceptedKeys(in: result.stderr)
        for (what, pointer) in SchemaProbe.testPlaces {
            let listed = try #require(accepted[what], "no unknown-key error for \(what) in:\n\(result.stderr)")
            #expect(listed == (try keys(document, pointer)), "\(what) against \(pointer)")
        }
    }
}
