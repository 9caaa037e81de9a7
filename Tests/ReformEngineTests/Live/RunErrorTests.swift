import Foundation
import ReformEngine
import ReformSDK
import Testing

/// A program that embeds Reform tells failures apart by ``RunError/code`` and the typed cause,
/// not by reading the message.
@Suite(.timeLimit(.minutes(10))) struct RunErrorTests {
    @Test func aBudgetOverrunAndATimeoutAreTwoKindsOfFailure() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service()
                + """

                managers:
                  pages:
                    service: api
                    path: /paged/page
                    params: { per_page: 5, total: 40 }
                    records: data.items
                    paging: { policy: page, param: page }
                    budget: { max_pages: 2 }
                  slow: { service: api, path: /slow, params: { delay: 2, tag: s }, timeout: 100ms }
                runs:
                  default: { managers: [pages], output: { format: ndjson, path: /dev/null } }
                  slow: { managers: [slow], output: { format: ndjson, path: /dev/null } }
                """)
        var options = RunOptions()
        options.mode = .live
        options.environment = ["TEST_URL": server.url]
        let budget = try await failure(of: Runner(pipeline: pipeline, options: options))
        #expect(budget.code == .request)
        #expect(budget.manager == "pages")
        #expect(budget.managerError?.kind == .budgetExceeded)
        #expect(budget.message.contains("budget of 2 pages"))

        options.runName = "slow"
        let timeout = try await failure(of: Runner(pipeline: pipeline, options: options))
        #expect(timeout.code == .request)
        #expect(timeout.managerError?.kind == .timeout)
        #expect(timeout.manager == "slow")
    }

    @Test func aMissingRunAndAnUnknownInputHaveTheirOwnCodes() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service()
                + """

                managers:
                  pages: { service: api, path: /paged/page, records: data.items }
                runs:
                  default: { managers: [pages], output: { format: ndjson, path: /dev/null } }
                """)
        var options = RunOptions()
        options.runName = "nightly"
        #expect(try await failure(of: Runner(pipeline: pipeline, options: options)).code == .noSuchRun)
        options.runName = nil
        options.inputs = [(manager: "orders", path: "orders.ndjson")]
        let unknown = try await failure(of: Runner(pipeline: pipeline, options: options))
        #expect(unknown.code == .unknownInput)
        #expect(unknown.manager == "orders")
        #expect(unknown.cause == nil)
    }

    private func failure(of runner: Runner) async throws -> RunError {
        do {
            _ = try await runner.run()
        } catch {
            return error
        }
        Issue.record("the run succeeded")
        return RunError(.system, "the run succeeded")
    }
}
