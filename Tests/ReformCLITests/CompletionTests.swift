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
    func bashOffers(_ line: String, in folder: String, script: String) async throws -> [String] {
        let scriptPath = folder + "/reform.bash"
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map { "'\($0)'" }.joined(separator: " ")
        // The script runs `reform` itself for custom completions (`--input`): the one built here.
        let binaries = URL(fileURLWithPath: ReformProcess.executable).deletingLastPathComponent().path
        let program = """
            export PATH='\(binaries)':"$PATH"; source '\(scriptPath)'; cd '\(folder)'
            COMP_WORDS=(\(words)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            _reform reform "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; printf '%s\\n' "${COMPREPLY[@]}"
            """
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-c", program]
        return try await runToEnd(bash).stdout.split(separator: "\n").map(String.init).sorted()
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
            #expect(try await bashOffers("reform run p.yaml \(option) ou", in: folder, script: script) == files, "\(option)")
        }
        #expect(try await bashOffers("reform test p.yaml --junit ou", in: folder, script: script) == files)
        #expect(try await bashOffers("reform cat ou", in: folder, script: script) == files)
        #expect(try await bashOffers("reform run p.yaml --colour a", in: folder, script: script) == ["always", "auto"])
    }

    /// `--input MANAGER=PATH` offers the pipeline's managers as `NAME=`, then the files after
    /// the `=` (issue 42: it offered nothing).
    @Test func bashCompletesInputsToManagersThenFiles() async throws {
        let script = try await CLIRunner.run(["--generate-completion-script", "bash"]).stdout
        let folder = Scratch.folder + "/completion-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "reform: 1\nmanagers: { listings: {}, orders: {}, other: {} }\n".write(
            toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        for name in ["orders-1.ndjson", "orders-2.ndjson", "notes.txt"] {
            try "".write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        #expect(try await bashOffers("reform run p.yaml --input o", in: folder, script: script) == ["orders=", "other="])
        #expect(
            try await bashOffers("reform run p.yaml --input orders=or", in: folder, script: script) == [
                "orders=orders-1.ndjson", "orders=orders-2.ndjson",
            ])
        #expect(try await bashOffers("reform run p.yaml --input orders=d", in: folder, script: script) == ["orders=data/"])
    }

    /// `reform init` and `reform studio` hand their arguments to programs beside `reform`; Tab
    /// still offers those programs' options, and paths after the options that take one (issue 39,
    /// 42: it offered nothing). The options offered are the ones each program's `--help` lists.
    @Test func bashCompletesInitAndStudioOptionsAndPaths() async throws {
        let script = try await CLIRunner.run(["--generate-completion-script", "bash"]).stdout
        let folder = Scratch.folder + "/completion-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/outdir", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["spec.json", "spec.txt", "p.yaml", "p.txt"] {
            try "".write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        #expect(try await bashOffers("reform init --op", in: folder, script: script) == ["--openapi"])
        #expect(try await bashOffers("reform init --openapi sp", in: folder, script: script) == ["spec.json"])
        #expect(try await bashOffers("reform init --output o", in: folder, script: script) == ["outdir/"])
        #expect(try await bashOffers("reform init --url h", in: folder, script: script) == [], "a URL is typed, not a file")
        #expect(try await bashOffers("reform studio p", in: folder, script: script) == ["p.yaml"])
        #expect(try await bashOffers("reform studio p.yaml --s", in: folder, script: script) == ["--scratch"])
        #expect(try await bashOffers("reform studio p.yaml --scratch o", in: folder, script: script) == ["outdir/"])
        for command in ["init", "studio"] {
            let help = try await CLIRunner.run([command, "--help"])
            #expect(help.status == 0, "\(help.stderr)")
            let options =
                help.stdout.components(separatedBy: "OPTIONS:").last?.split(separator: "\n").compactMap { line in
                    line.split(separator: " ").first { $0.hasPrefix("--") }.map(String.init)
                } ?? []
            let listed = Set(options).subtracting(["--help"])
            #expect(!listed.isEmpty)
            // (--help and --version are offered for every command.)
            let offered = Set(try await bashOffers("reform \(command) --", in: folder, script: script)).subtracting(["--help", "--version"])
            #expect(offered == listed, "reform \(command) --help lists \(listed); Tab offers \(offered)")
        }
    }

    /// Whether `shell` is installed; without it the shell's test is skipped, unless
    /// `REFORM_REQUIRE_SHELLS=1` (`.ci/run` installs zsh and fish and sets it).
    static func has(_ shell: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/" + shell)
            || ProcessInfo.processInfo.environment["REFORM_REQUIRE_SHELLS"] == "1"
    }

    /// A folder holding what the path options should offer (`out-a.ndjson`, `out-b.csv`,
    /// `outdir/`) and what they should not (`other.txt`).
    func completionFolder() throws -> String {
        let folder = Scratch.folder + "/completion-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/outdir", withIntermediateDirectories: true)
        for name in ["out-a.ndjson", "out-b.csv", "other.txt"] {
            try "".write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        return folder
    }

    /// The output of `program` with `arguments`, run in `folder`.
    func output(of program: String, _ arguments: [String], in folder: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        return try await runToEnd(process).stdout
    }

    /// Fish offers what `complete -C` lists for the line, the generated script sourced.
    @Test(.enabled(if: has("fish"))) func fishCompletesSubcommandsPathsAndValues() async throws {
        let script = try await CLIRunner.run(["--generate-completion-script", "fish"]).stdout
        let folder = try completionFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try script.write(toFile: folder + "/reform.fish", atomically: true, encoding: .utf8)
        func offers(_ line: String) async throws -> [String] {
            let listed = try await output(
                of: "/usr/bin/fish", ["--no-config", "-c", "source reform.fish; complete -C '\(line)'"], in: folder)
            return listed.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }.sorted()
        }
        #expect(try await offers("reform ru") == ["run"])
        #expect(try await offers("reform run p.yaml --format ") == ["csv", "html", "json", "markdown", "ndjson", "table"])
        #expect(try await offers("reform run p.yaml --output ou") == ["out-a.ndjson", "out-b.csv", "outdir/"])
        #expect(try await offers("reform test p.yaml --junit ou") == ["out-a.ndjson", "out-b.csv", "outdir/"])
        #expect(try await offers("reform run p.yaml --colour a") == ["always", "auto"])
        #expect(try await offers("reform run p.yaml --log-level d") == ["debug"])
    }

    /// Zsh lists what a user pressing Tab would see: an interactive zsh in a pseudo-terminal
    /// (`zsh/zpty`) with the generated `_reform` on its `fpath` and `compinit` run, the line typed
    /// and a Tab pressed; its screen is read back.
    @Test(.enabled(if: has("zsh"))) func zshCompletesSubcommandsPathsAndValues() async throws {
        let script = try await CLIRunner.run(["--generate-completion-script", "zsh"]).stdout
        let folder = try completionFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try script.write(toFile: folder + "/_reform", atomically: true, encoding: .utf8)
        // Each step waits for what the shell prints when it is done ("READY> ", the prompt set
        // by the first command; "COMPLETION-DONE" from the last one), written split in the
        // commands so that their echo does not match: a line typed before the prompt is up is
        // read by the terminal, not by zsh's line editor, and never completed.
        let harness = #"""
            zmodload zsh/zpty
            zpty z zsh -f -i
            zpty -w z "PS1='RE''ADY> '; fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -D; setopt nobeep; unsetopt listambiguous; LISTMAX=10000"
            out=''
            wait_for() {
              for i in {1..200}; do
                while zpty -r -t z chunk; do out+=$chunk; done
                [[ $out == *$1* ]] && return 0
                sleep 0.05
              done
              return 1
            }
            wait_for 'READY> ' || { print -r -- "no prompt: $out"; exit 1 }
            out=''
            zpty -n -w z "$2"$'\t'
            zpty -n -w z $'\C-u'"echo COMPLETION-''DONE"$'\n'
            wait_for 'COMPLETION-DONE' || { print -r -- "no end: $out"; exit 1 }
            zpty -d z
            print -r -- "$out"
            """#
        try harness.write(toFile: folder + "/harness.zsh", atomically: true, encoding: .utf8)
        /// The screen's text, without the terminal's escape sequences and backspaces.
        func screen(_ line: String) async throws -> String {
            let raw = try await output(of: "/usr/bin/zsh", ["-f", folder + "/harness.zsh", folder, line], in: folder)
            return raw.replacing(/\x1B\[[0-9;?]*[A-Za-z]/, with: "").replacing("\u{8}", with: "")
        }
        #expect(try await screen("reform ru").contains("reform run"))
        let formats = try await screen("reform run p.yaml --format ")
        for format in ["ndjson", "json", "table", "csv", "markdown", "html"] { #expect(formats.contains(format), "\(formats)") }
        for option in ["--output", "--dead-letter"] {
            let files = try await screen("reform run p.yaml \(option) ou")
            #expect(files.contains("out-a.ndjson") && files.contains("out-b.csv") && files.contains("outdir/"), "\(option): \(files)")
            #expect(!files.contains("other.txt"), "\(option): \(files)")
        }
        let colours = try await screen("reform run p.yaml --colour a")
        #expect(colours.contains("always") && colours.contains("auto") && !colours.contains("never"), "\(colours)")
    }
}
