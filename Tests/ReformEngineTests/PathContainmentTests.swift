import Foundation
import ReformEngine
import ReformYAML
import Testing

/// Fixtures and plugin folders a pipeline declares stay inside its folder unless allowed.
@Suite("Path containment", .timeLimit(.minutes(10)))
struct PathContainmentTests {
    /// The first lines of the errors from loading a pipeline whose one manager reads `fixtures`.
    func errors(fixtures: String, allow: Bool = false, in folder: TemporaryFolder) throws -> [String] {
        let path = try folder.write("p.yaml", "reform: 1\nmanagers:\n  m: { fixtures: '\(fixtures)' }\n")
        do {
            _ = try PipelineLoader(environment: [:], allowOutsidePaths: allow).load(path: path)
            return []
        } catch {
            return error.diagnostics.filter { $0.severity == .error }.map {
                $0.description.replacingOccurrences(of: folder.path, with: "<dir>")
            }
        }
    }

    @Test func fixturesInsideTheFolderLoad() throws {
        let folder = try TemporaryFolder()
        _ = try folder.write("fixtures/m/page-1.json", "[]")
        #expect(try errors(fixtures: "fixtures/m", in: folder) == [])
        #expect(try errors(fixtures: "fixtures/../fixtures/m", in: folder) == [])
        #expect(try errors(fixtures: "not/there/yet", in: folder) == [])
    }

    @Test func dotDotEscapesAreAnErrorAtTheirLine() throws {
        let folder = try TemporaryFolder()
        let found = try errors(fixtures: "../../etc/passwd", in: folder)
        #expect(found.count == 1)
        #expect(
            found.first?.hasPrefix(
                "<dir>/p.yaml:3:18: error: '../../etc/passwd' ('fixtures' of manager 'm') is outside the pipeline's folder (it resolves to "
            ) == true)
        #expect(found.first?.contains("/etc/passwd); move it inside, or pass --allow-outside-paths to allow it") == true)
    }

    @Test func absolutePathsOutsideAreAnError() throws {
        let folder = try TemporaryFolder()
        #expect(try errors(fixtures: "/etc", in: folder).count == 1)
        #expect(try errors(fixtures: folder.path + "/fixtures", in: folder) == [])
    }

    @Test func symlinksOutAreFollowedAndCaught() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/out", withDestinationPath: "/etc")
        let found = try errors(fixtures: "out", in: folder)
        #expect(found.count == 1)
        #expect(found.first?.contains("(it resolves to /etc)") == true)
        #expect(try errors(fixtures: "out/../x", in: folder).count == 1)
    }

    @Test func theLoaderOptionAllowsOutsidePaths() throws {
        let folder = try TemporaryFolder()
        #expect(try errors(fixtures: "../elsewhere", allow: true, in: folder) == [])
    }

    @Test func pluginPathsAreContainedToo() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("p.yaml", "reform: 1\nplugin_paths: [., ../../lib]\nmanagers:\n  m: {}\n")
        #expect(throws: PipelineLoadError.self) { _ = try PipelineLoader(environment: [:]).load(path: path) }
        do { _ = try PipelineLoader(environment: [:]).load(path: path) } catch {
            #expect(
                error.diagnostics.map(\.message).contains {
                    $0.hasPrefix("'../../lib' (a folder in 'plugin_paths') is outside the pipeline's folder")
                })
        }
    }
}
