import ArgumentParser
import ReformEngine
import ReformSDK

/// `reform show`: what a table holds and how it got there.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Summarise a table: its rows, columns (type, nulls), last load and the columns schema: evolve added.",
        discussion: """
            ADDRESS is sqlite:PATH#TABLE or postgres://HOST/DATABASE#TABLE (postgres:URL#TABLE for any libpq URL), \
            as 'reform cat' reads; #TABLE may be left out when the database holds one table. The last load and \
            the changes come from the logs every run that loads a table keeps beside it (_reform_loads, \
            _reform_schema_log).
            """)

    @Argument(help: "The table: sqlite:PATH#TABLE or postgres://HOST/DATABASE#TABLE.")
    var address: String

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func run() throws {
        let summary: TableSummary
        do { summary = try TableSummary.read(address) } catch {
            Terminal.error("reform: error: \(error.description)")
            throw ExitCode(ExitStatus.invalid.rawValue)
        }
        if json {
            var bytes: [UInt8] = []
            JSON.writePretty(summary.json, into: &bytes)
            print(String(decoding: bytes, as: UTF8.self))
        } else {
            print(summary.text, terminator: "")
        }
    }
}
