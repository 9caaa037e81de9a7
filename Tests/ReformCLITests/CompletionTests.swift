import Foundation
import ReformTestSupport
import Testing

/// Shell completion offers what a user types next: YAML files for a pipeline, format names for
/// `--format`, levels for `--log-level` (issue 17).
@Suite(.timeLimit(.minutes(10))) struct CompletionTests {
    @Test func bashCompletesPipelineFilesFormatsAndLogLevels() async throws {
        let result = try await CLIRunner.run(["--generate-completion-script", "bash"])
        #expect(result.status == 0, "\(result.stderr)")
        let script = result.stdout
        #expect(script.contains("-fX '!*.@(yaml|yml)'"), "pipeline arguments complete to YAML files")
        #expect(script.contains("'ndjson'$'\\n''json'$'\\n''table'$'\\n''csv'$'\\n''markdown'$'\\n''html'"), "--format values")
        #expect(script.contains("'trace'$'\\n''debug'$'\\n''info'"), "--log-level values")
    }

    /// What bash offers after `line` (the last word being completed), with the generated script
    /// sourced and the working folder `folder`, as a user pressing Tab there would see it.
    func bashOffers(_ line: String, in folder: String, script: String) throws -> [String] {
        let scriptPath = folder + "/reform.bash"
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source '\(scriptPath)'; cd '\(folder)'
            COMP_WORDS=(\(words)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            _reform reform "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; printf '%s\\n' "${COMPREPLY[@]}"
            """
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-c", program]
        let pipe = Pipe()
        bash.standardOutput = pipe
        try bash.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        bash.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    }

    /// Paths complete to the files there (issue 42: the script turned bash's own file-name
    /// completion off and offered nothing), and `--colour` to its values.
    @Test func bashCompletesOutputPathsAndColours() async throws {
        let script = try await CLIRunner.run(["--generate-completion-script", "bash"]).stdout
        let folder = Scratch.folder + "/completion-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/outdir", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["out-a.ndjson", "out-b.csv", "other.txt"] {
            try "".write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        let files = ["out-a.ndjson", "out-b.csv", "outdir"]
        for option in ["--output", "--dead-letter", "--stats-file", "--state", "--tagged-input"] {
            #expect(try bashOffers("reform run p.yaml \(option) ou", in: folder, script: script) == files, "\(option)")
        }
        #expect(try bashOffers("reform test p.yaml --junit ou", in: folder, script: script) == files)
        #expect(try bashOffers("reform cat ou", in: folder, script: script) == files)
        #expect(try bashOffers("reform run p.yaml --colour a", in: folder, script: script) == ["always", "auto"])
    }
}
