import Foundation
import ReformTestSupport
import Testing

/// Reports people open, through the command line: CSV for spreadsheet programs.
@Suite("Reports", .timeLimit(.minutes(10)))
struct ReportTests {
    @Test func csvBomStartsEveryCSVOutputWithTheByteOrderMark() async throws {
        let plain = try await CLIRunner.run(["run", "Pipelines/reminders.yaml", "--format", "csv", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.hasPrefix("date,label\n"))
        let marked = try await CLIRunner.run(["run", "Pipelines/reminders.yaml", "--format", "csv", "--quiet", "--csv-bom"])
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(marked.stdout == "\u{FEFF}" + plain.stdout)
    }
}
