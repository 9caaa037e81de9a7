import Foundation
import ReformEngine
import ReformSDK
import Testing

extension OutputTests {
    /// The HTML page is something people open and mail: it names itself, counts its records, reads
    /// on a phone, links URLs, lines numbers up and sorts by a column without fetching anything.
    struct HTML {
        @Test func thePageHasALanguageAViewportATitleAndARecordCount() throws {
            let page = try OutputTests.render(.html, [["a": 1], ["a": 2], ["a": 3]]).text
            #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"))
            #expect(page.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"))
            #expect(page.contains("<title>reform</title>\n"))
            #expect(page.contains("<body>\n<h1>reform</h1>\n<table>\n"))
            #expect(page.contains("</table>\n<p class=\"count\">3 records</p>\n"))
            #expect(try OutputTests.render(.html, [["a": 1]]).text.contains("<p class=\"count\">1 record</p>"))
            #expect(try OutputTests.render(.html, []).text.contains("<p class=\"count\">0 records</p>"))
        }

        @Test func httpAndHTTPSValuesAreEscapedLinksAndNothingElseIs() throws {
            let records: [Value] = [
                ["u": "https://example.com/a?x=1&y=\"2\"<b>"],
                ["u": "HTTP://EXAMPLE.COM/"],
                ["u": "javascript:alert(1)"],
                ["u": "http://two words.example"],
                ["u": "ftp://example.com/f"],
                ["u": "see https://example.com"],
            ]
            let page = try OutputTests.render(.html, records).text
            let link = "https://example.com/a?x=1&amp;y=&quot;2&quot;&lt;b&gt;"
            #expect(page.contains("<tr><td><a href=\"\(link)\" rel=\"noopener noreferrer\">\(link)</a></td></tr>\n"))
            #expect(
                page.contains("<tr><td><a href=\"HTTP://EXAMPLE.COM/\" rel=\"noopener noreferrer\">HTTP://EXAMPLE.COM/</a></td></tr>\n"))
            #expect(page.contains("<tr><td>javascript:alert(1)</td></tr>\n"))
            #expect(page.contains("<tr><td>http://two words.example</td></tr>\n"))
            #expect(page.contains("<tr><td>ftp://example.com/f</td></tr>\n"))
            #expect(page.contains("<tr><td>see https://example.com</td></tr>\n"))
            #expect(!page.contains("href=\"javascript"))
        }

        @Test func numberColumnsAreRightAlignedUnderRightAlignedHeadings() throws {
            let records: [Value] = [
                ["id": 7, "price": "1,234.50", "share": "12%", "name": "flat", "mixed": 1, "gaps": nil],
                ["id": 12, "price": "-¥3", "share": "0.5%", "name": "42", "mixed": "n/a", "gaps": 2.5],
            ]
            let page = try OutputTests.render(.html, records).text
            #expect(
                page.contains(
                    "<tr><th class=\"number\">id</th><th class=\"number\">price</th><th class=\"number\">share</th>"
                        + "<th>name</th><th>mixed</th><th class=\"number\">gaps</th></tr>"))
            #expect(page.contains("<td class=\"number\">1,234.50</td><td class=\"number\">12%</td><td>flat</td>"))
            #expect(page.contains("<td class=\"number\">-¥3</td>"))
            #expect(page.contains("th.number, td.number { text-align: right;"))
        }

        @Test func theColumnsSortWithAnInlineScriptAndNothingIsFetched() throws {
            let page = try OutputTests.render(.html, [["name": "b", "n": 2], ["name": "a", "n": 10]]).text
            #expect(page.contains("<script>\n"))
            #expect(page.contains("aria-sort"))
            #expect(page.hasSuffix("</script>\n</body>\n</html>\n"))
            for external in ["src=", "<link", "@import", "url(", "http"] {
                #expect(!page.contains(external), "the page refers to \(external)")
            }
        }

        @Test func aPageWithoutARowShapeIsNamedAfterThePipeline() throws {
            let folder = try TemporaryFolder()
            let input = try folder.write("in.ndjson", "{\"a\":1}\n")
            for (name, title) in [("name: shop-orders\n", "shop-orders"), ("", "unnamed")] {
                let yaml = "reform: 1\n\(name)managers: { m: {} }\nruns: { default: { output: { format: html } } }\n"
                let file = try folder.write("unnamed.yaml", yaml)
                let pipeline = try PipelineLoader(environment: [:]).load(path: file)
                var options = RunOptions()
                options.inputs = [("m", input)]
                options.outputPath = folder.path + "/page.html"
                _ = try Runner(pipeline: pipeline, options: options).run()
                let page = try folder.read("page.html")
                #expect(page.contains("<title>\(title)</title>") && page.contains("<h1>\(title)</h1>"), "\(page)")
            }
        }

        @Test func aLongPageDecidesItsNumberColumnsFromTheFirstThousandRowsThenStreams() throws {
            var records: [Value] = (0..<1_500).map { ["n": .int($0), "late": .int($0)] }
            records[1_200] = ["n": 1, "late": "text after the first thousand"]
            let page = try OutputTests.render(.html, records).text
            #expect(page.contains("<tr><th class=\"number\">n</th><th class=\"number\">late</th></tr>"))
            #expect(page.contains("<p class=\"count\">1,500 records</p>"))
            #expect(page.components(separatedBy: "<tr>").count == 1_502)
        }
    }
}
