import Foundation
import ReformTestSupport
import Testing

/// The HTML page Reform writes, opened in a real browser (headless Chromium, Debian's `chromium`):
/// title, lang, viewport, record count, links, right-aligned numeric columns, sorting by clicking
/// a heading, and a screenshot that shows something. `.ci/run` installs Chromium and sets
/// `REFORM_REQUIRE_BROWSER=1`, so CI fails rather than skips when it is missing.
@Suite("HTML page in a browser", .timeLimit(.minutes(10)), .enabled(if: Browser.chromium != nil || Browser.required))
struct BrowserCheckTests {
    static let inputs = CLIRunner.projectRoot + "/Tests/ReformCLITests/Inputs/Browser/"

    /// Runs headless Chromium on `arguments` with a profile of its own in `folder`; its standard output.
    func browse(_ arguments: [String], in folder: String) async throws -> String {
        let browser = try #require(Browser.chromium, "headless Chromium is needed: apt-get install chromium")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments =
            ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(folder)/profile-\(UUID().uuidString)"] + arguments
        let outcome = try await runToEnd(process)
        #expect(outcome.status == 0, "chromium \(arguments)")
        return outcome.stdout
    }

    /// A folder for one test, removed afterwards by the caller.
    func temporaryFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-browser-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The page `reform run` writes for the browser-check pipeline, at `folder/page.html`.
    func writePage(in folder: String) async throws -> String {
        let page = folder + "/page.html"
        let result = try await CLIRunner.run([
            "run", Self.inputs + "page.yaml", "--input", "shop=\(Self.inputs)shop.ndjson", "--output", page, "-q",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        return page
    }

    @Test func theDOMHasTitleLangViewportCountLinksAlignmentAndSorting() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let page = try String(contentsOfFile: try await writePage(in: folder), encoding: .utf8)
        let script = try String(contentsOfFile: Self.inputs + "check.js", encoding: .utf8)
        let checked = folder + "/checked.html"
        try page.replacingOccurrences(of: "</body>", with: "<script>\n\(script)</script>\n</body>")
            .write(toFile: checked, atomically: true, encoding: .utf8)

        let dom = try await browse(["--dump-dom", "file://\(checked)"], in: folder)
        let start = try #require(dom.range(of: "<pre id=\"reform-check\">", options: .backwards), "the check did not run:\n\(dom)")
        let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        let json = dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        let found = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])

        #expect(found["title"] as? String == "items")
        #expect(found["lang"] as? String == "en")
        #expect(found["viewport"] as? String == "width=device-width, initial-scale=1")
        #expect(found["count"] as? String == "3 records")
        #expect(
            found["links"] as? [String] == ["https://example.com/anvil?a=1&b=2", "https://example.com/bolt", "http://example.com/crate"])
        #expect(found["headings"] as? [String] == ["name", "link", "price"])
        #expect(found["headingAlign"] as? [String] == ["left", "left", "right"])
        #expect(found["cellAlign"] as? [String] == ["left", "left", "right"])
        #expect(found["before"] as? [String] == ["100", "9", "10.5"])
        #expect(found["ascending"] as? [String] == ["9", "10.5", "100"], "numbers sort as numbers, not text")
        #expect(found["ascendingMark"] as? String == "ascending")
        #expect(found["descending"] as? [String] == ["100", "10.5", "9"])
        #expect(found["descendingMark"] as? String == "descending")
    }

    @Test func theScreenshotShowsMoreThanABlankPage() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let page = try await writePage(in: folder)
        try "<!DOCTYPE html><html><body></body></html>".write(toFile: folder + "/blank.html", atomically: true, encoding: .utf8)
        var sizes: [Int] = []
        for (name, file) in [("page", page), ("blank", folder + "/blank.html")] {
            let shot = "\(folder)/\(name).png"
            _ = try await browse(["--window-size=800,600", "--screenshot=\(shot)", "file://\(file)"], in: folder)
            let png = try Data(contentsOf: URL(fileURLWithPath: shot))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(name).png is a PNG")
            // IHDR: width and height, big-endian, at bytes 16..<24.
            let size = png.count >= 24 ? png[16..<24].reduce(0) { $0 << 8 | Int($1) } : 0
            #expect(size == 800 << 32 | 600, "\(name).png is 800×600")
            sizes.append(png.count)
        }
        #expect(sizes[0] > 4 * sizes[1], "the page's screenshot (\(sizes[0]) bytes) is far from blank (\(sizes[1]) bytes)")
    }
}

/// Where headless Chromium is, and whether the run must have it (CI).
enum Browser {
    static let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
    static var chromium: String? { candidates.first { FileManager.default.isExecutableFile(atPath: $0) } }
    static var required: Bool { ProcessInfo.processInfo.environment["REFORM_REQUIRE_BROWSER"] == "1" }
}
