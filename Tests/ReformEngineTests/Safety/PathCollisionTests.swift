import Foundation
import ReformEngine
import Testing

/// A run refuses files that would overwrite each other or its inputs before it writes anything
/// (reliability audit D5, D6).
@Suite("Path collisions", .timeLimit(.minutes(10)))
struct PathCollisionTests {
    let loader = PipelineLoader(environment: [:])

    static let yaml = """
        reform: 1
        managers: { a: {} }
        reformers: { list: { keys: { id: kID }, from: { a: { id: id } } } }
        runs:
          default: { reform: [list], output: { format: ndjson } }
          two:
            outputs:
              - { reform: [list], format: ndjson, path: out/a.ndjson }
              - { reform: [list], format: csv, path: out/b.csv }
        """

    static let input = "{\"id\":1}\nnot json\n{\"id\":2}\n"

    func attempt(_ configure: (inout RunOptions, TemporaryFolder) throws -> Void) throws -> (error: String?, folder: TemporaryFolder) {
        let folder = try TemporaryFolder()
        try folder.write("in.ndjson", PathCollisionTests.input)
        let pipeline = try loader.load(path: try folder.write("p.yaml", PathCollisionTests.yaml))
        var options = RunOptions()
        options.inputs = [("a", folder.path + "/in.ndjson")]
        options.deadLetterPath = folder.path + "/dead.ndjson"
        try configure(&options, folder)
        do {
            _ = try Runner(pipeline: pipeline, options: options).run()
            return (nil, folder)
        } catch {
            return (error.description, folder)
        }
    }

    @Test func theDeadLetterFileCannotBeTheOutput() throws {
        let (error, folder) = try attempt { options, folder in
            options.outputPath = folder.path + "/both.ndjson"
            options.deadLetterPath = folder.path + "/both.ndjson"
        }
        #expect(
            error
                == "\(folder.path)/both.ndjson: the dead-letter file and --output are the same file, so one would replace the other; give each its own path (nothing was written)"
        )
        #expect(!folder.exists("both.ndjson"))
    }

    @Test func anOutputCannotBeAnInput() throws {
        let (error, folder) = try attempt { options, folder in options.outputPath = folder.path + "/in.ndjson" }
        #expect(
            error
                == "\(folder.path)/in.ndjson: --output is an input of manager 'a', which writing it would replace; write to another path (nothing was written)"
        )
        #expect(try folder.read("in.ndjson") == PathCollisionTests.input)
    }

    @Test func theDeadLetterFileCannotBeAnInputEvenThroughALink() throws {
        let (error, folder) = try attempt { options, folder in
            try FileManager.default.createSymbolicLink(
                atPath: folder.path + "/link.ndjson", withDestinationPath: folder.path + "/in.ndjson")
            options.outputPath = "/dev/null"
            options.deadLetterPath = folder.path + "/link.ndjson"
        }
        #expect(error?.contains("the dead-letter file is an input of manager 'a'") == true, "\(error ?? "no error")")
        #expect(try folder.read("in.ndjson") == PathCollisionTests.input)
    }

    @Test func anOutputCannotBeThePipeline() throws {
        let (error, folder) = try attempt { options, folder in options.outputPath = folder.path + "/./p.yaml" }
        #expect(error?.contains("--output is the pipeline file") == true, "\(error ?? "no error")")
        #expect(try folder.read("p.yaml") == PathCollisionTests.yaml)
    }

    @Test func twoOutputsOfARunCannotShareAFile() throws {
        let (error, _) = try attempt { options, folder in
            options.runName = "two"
            options.outputFolder = folder.path
            options.deadLetterPath = folder.path + "/out/b.csv"
        }
        #expect(error?.contains("the dead-letter file and output 2 of run 'two' are the same file") == true, "\(error ?? "no error")")
    }

    @Test func devicesAreNotCollisions() throws {
        let (error, _) = try attempt { options, _ in
            options.outputPath = "/dev/null"
            options.deadLetterPath = "/dev/null"
        }
        #expect(error == nil)
    }
}
