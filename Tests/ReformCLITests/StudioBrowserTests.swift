import Foundation
import ReformSystem
import ReformTestSupport
import Testing

/// `reform studio` as a person uses it, in a real browser (headless Chromium, driven over the
/// DevTools protocol by `Inputs/Studio/drive.py` running `Inputs/Studio/scenario.js` in the page):
/// a typo's diagnostic at its line, fixed; a run's pages and each page's exchange; the records
/// after each reformer and the page one came from; saving, which runs again; a file changed on
/// disk loaded; and screenshots at desktop and phone width, kept in `.build/artifacts/`.
@Suite(.timeLimit(.minutes(10)), .enabled(if: Browser.chromium != nil || Browser.required))
struct StudioBrowserTests {
    static let inputs = CLIRunner.projectRoot + "/Tests/ReformCLITests/Inputs/Studio/"
    static let artifacts = CLIRunner.projectRoot + "/.build/artifacts"

    /// A studio started as a person starts it (`reform studio`) on a copy of the pipeline `name`
    /// and the fixtures, in a folder of its own; its process, URL and folder.
    func startStudio(on name: String) async throws -> (pid: pid_t, url: String, folder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-studio-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let pipelines = CLIRunner.projectRoot + "/Pipelines"
        try FileManager.default.copyItem(atPath: pipelines + "/" + name, toPath: folder + "/" + name)
        try FileManager.default.copyItem(atPath: pipelines + "/fixtures", toPath: folder + "/fixtures")
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        // reform studio, on a free port; its first line is the URL.
        let output = Pipe()
        let studio = try Spawn.start(
            [CLIRunner.executable, "studio", folder + "/" + name, "--scratch", folder + "/scratch"],
            stdout: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let reader = output.fileHandleForReading
        let firstLine = try await offPool { () -> String in
            var line: [UInt8] = []
            while let byte = try reader.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") { line.append(byte) }
            return String(decoding: line, as: UTF8.self)
        }
        #expect(firstLine.hasPrefix("reform studio: http://127.0.0.1:") && firstLine.contains("/?token="), "\(firstLine)")
        return (studio, firstLine.split(separator: " ").last.map(String.init) ?? "", folder)
    }

    /// Runs `scenario` in the page at `url` (screenshots into `shots`); what it found.
    func drive(_ url: String, scenario: String, shots: String) async throws -> [String: Any] {
        let browser = try #require(Browser.chromium, "headless Chromium is needed: apt-get install chromium")
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let driven = try await StudioBrowserTests.python([Self.inputs + "drive.py", browser, url, Self.inputs + scenario, shots])
        return try #require(try JSONSerialization.jsonObject(with: Data(driven.utf8)) as? [String: Any], "drive.py printed: \(driven)")
    }

    @Test func aPersonFixesATypoRunsFollowsARecordToItsPageAndSaves() async throws {
        let (studio, url, folder) = try await startStudio(on: "property-list.yaml")
        defer {
            kill(studio, SIGKILL)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let found = try await drive(url, scenario: "scenario.js", shots: Self.artifacts)

        #expect(found["loaded"] as? String == "ok (3 managers, 1 reformer, 3 runs)")
        // The typo: its diagnostic at its line, flagged in the gutter; a click puts the cursor there.
        #expect(found["dirtyState"] as? String == "edited, not saved")
        let line = try #require(found["brokenLine"] as? Int)
        #expect(found["diagnosticLine"] as? Int == line)
        #expect(
            found["diagnostic"] as? String
                == "\(folder)/property-list.yaml:\(line):1: error: unknown key 'managrs' in the pipeline; did you mean 'managers'?")
        #expect((found["flaggedLines"] as? [Int])?.contains(line) == true)
        #expect(found["cursorLine"] as? Int == line)
        #expect(found["diagnosticsAfterFix"] as? Int == 0)
        #expect(found["params"] as? [String] == ["city", "page_size"])
        // The run: every page, and a page's exchange.
        #expect((found["runState"] as? String)?.hasPrefix("run 1 (default, replay): done · 8 pages") == true, "\(found["runState"] ?? "")")
        #expect(found["pageRows"] as? Int == 8)
        #expect(found["pageTitle"] as? String == "GET /zufang/list?city=shanghai&page_size=3&page=2")
        #expect(found["pageBodyHasTheList"] as? Bool == true)
        // The records after the reformer, and where the fourth came from.
        #expect(found["stages"] as? [[String]] == [["1", "property-list", "17", "17", "0"]])
        #expect(found["stageRecords"] as? Int == 17)
        #expect(found["fourthOrigin"] as? String == "from zufang · record 4 · page 2")
        #expect(found["originButton"] as? String == "Open page 2: GET /zufang/list?city=shanghai&page_size=3&page=2")
        #expect((found["originLanded"] as? [String: Any])?["id"] as? Int == 110)
        // Its path: what the reformer made of it.
        let path = found["originPath"] as? [String] ?? []
        #expect(path.count == 2 && path.first?.hasPrefix("Output 1") == true, "\(path)")
        #expect(path.last?.hasPrefix("1 property-list → ") == true && path.last?.hasSuffix(" keys") == true, "\(path)")
        #expect(found["pagesVisibleAfterOrigin"] as? Bool == true)
        #expect(found["selectedPage"] as? String == "zufang||2")
        #expect(found["originPageTitle"] as? String == "GET /zufang/list?city=shanghai&page_size=3&page=2")
        #expect((found["outputFiles"] as? [String])?.first?.hasPrefix("standard-output · ") == true)
        // Saved, run again; and a change on disk loaded.
        #expect((found["rerunState"] as? String)?.hasPrefix("run 2 (default, replay): done") == true)
        #expect(found["changesAgainst"] as? String == "Run 2 against run 1 (default)")
        #expect(found["changes"] as? [String] == ["standard-output: +0 −0"], "\(found["changes"] ?? "")")
        #expect(found["reloadedFromDisk"] as? Bool == true)
        // The rows run: the first row written (sorted by id) and the record that filled it.
        #expect(found["writtenRows"] as? Int == 17)
        #expect(found["writtenHeading"] as? String == "Rows of listing-row: the first 17 of 17 written")
        let firstRow = found["firstRow"] as? [String] ?? []
        #expect(firstRow.count == 4 && firstRow.last?.contains(" · record ") == true, "\(firstRow)")
        let landed = found["firstRowLanded"] as? [String: Any] ?? [:]
        #expect(
            [landed["id"], landed["xinfang_id"], landed["esf_id"]].compactMap { $0 as? Int }.map(String.init) == [firstRow.first ?? ""],
            "\(landed)")
        let onDisk = try String(contentsOfFile: folder + "/property-list.yaml", encoding: .utf8)
        #expect(onDisk.hasPrefix("# changed by another editor\n# yaml-language-server"))

        // Screenshots: far from blank, and at a phone's width the panes stack with nothing wider than the screen.
        let shots = try #require(found["screenshots"] as? [String: [String: Any]])
        for (name, width) in [("desktop", 1280), ("phone", 390)] {
            let shot = try #require(shots[name])
            let layout = try #require(shot["layout"] as? [String: Any])
            #expect(layout["scrollWidth"] as? Int == width, "\(name): \(layout)")
            #expect(layout["stacked"] as? Bool == (name == "phone"), "\(name): \(layout)")
            let png = try Data(contentsOf: URL(fileURLWithPath: try #require(shot["path"] as? String)))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name) is a PNG")
            #expect(png.count > 30_000, "\(name) shows the page (\(png.count) bytes)")
        }

        // SIGTERM stops it cleanly.
        kill(studio, SIGTERM)
        #expect(try await Spawn.exitStatus(of: studio) == 0)
    }

    @Test func aPersonSeesTheBookmarksOfARunAndResetsAManager() async throws {
        let (studio, url, folder) = try await startStudio(on: "github-incremental.yaml")
        defer {
            kill(studio, SIGKILL)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let found = try await drive(url, scenario: "state-scenario.js", shots: folder + "/shots")
        #expect(found["before"] as? String == "Nothing saved yet: the next run fetches everything.")
        #expect((found["runState"] as? String)?.contains(": done") == true, "\(found["runState"] ?? "")")
        #expect(found["place"] as? String == "Kept in \(folder)/scratch/state.json")
        let rows = try #require(found["rows"] as? [[String]])
        #expect(
            rows.map { $0.prefix(3).joined(separator: " ") }.sorted() == [
                "issues repo=gadgets 2026-01-01T00:12:00Z", "issues repo=widgets 2026-01-01T00:12:00Z",
            ], "\(rows)")
        #expect(rows.allSatisfy { $0[3].hasSuffix(" ago") && $0[4] == "11 records" && $0[5] == "asks from the bookmark" }, "\(rows)")
        #expect(found["buttons"] as? [String] == ["Reset issues"])
        #expect(found["reset"] as? String == "state of manager 'issues' reset in \(folder)/scratch/state.json")
        #expect(found["after"] as? String == "Nothing saved yet: the next run fetches everything.")
        kill(studio, SIGTERM)
        #expect(try await Spawn.exitStatus(of: studio) == 0)
    }

    /// Runs python3 with `arguments` and returns its standard output; its standard error joins a
    /// failure's message.
    static func python(_ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let outcome = try await runToEnd(process)
        guard outcome.status == 0 else {
            throw StudioDriveError(description: "drive.py exited \(outcome.status): " + outcome.stderr)
        }
        return outcome.stdout
    }
}

struct StudioDriveError: Error, CustomStringConvertible {
    let description: String
}
