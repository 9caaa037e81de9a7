import ReformEngine
import ReformSDK
import Testing

/// XML responses (`format: xml`) from the test server, read by the system libxml2: an RSS feed
/// paged to its end, a namespaced SOAP envelope, a broken document and an entity bomb refused
/// whole, nothing of them landed.
@Suite(.timeLimit(.minutes(10))) struct XMLResponseTests {
    private func manager(_ path: String, _ extra: String) -> String {
        service() + "\nmanagers:\n  m: { service: api, path: \(path), format: xml\(extra) }"
    }

    @Test func anRSSFeedsItemsPageToTheEndWithAttributesNamespacesAndCDATA() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            manager(
                "/xml/rss",
                ", records: rss.channel.item, params: { per_page: { type: int, default: 10 } }, "
                    + "paging: { policy: page, param: page, size_param: per_page, stop: [empty_page, short_page] }"))
        let (records, pages, stop) = try await server.manager("m", in: pipeline).loadAll()
        #expect(records.count == 47)
        #expect(pages == 5)
        #expect(stop == "short page (7 < 10)")
        #expect(
            records[4] == [
                "title": "商品 5", "link": "http://example.test/items/5", "description": "<p>Price 6.25 &amp; more</p>",
                "creator": "R & D", "guid": ["isPermaLink": "false", "#text": "item-5"],
                "enclosure": ["url": "http://example.test/5.png", "length": "500", "type": "image/png"],
            ])
    }

    @Test func aSOAPEnvelopesRecordsKeepRepeatedChildrenAsLists() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(manager("/xml/soap", ", records: Envelope.Body.GetOrdersResponse.Order"))
        let records = try await server.manager("m", in: pipeline).load().records
        #expect(
            records == [
                ["id": "A-1", "status": "open", "Customer": "Ann", "Line": [["sku": "x", "#text": "2"], ["sku": "y", "#text": "1"]]],
                ["id": "A-2", "status": "closed", "Customer": "Bo", "Line": ["sku": "z", "#text": "5"], "Note": nil],
            ])
    }

    /// A download that does not page is streamed (read from disk as the run takes it): the same
    /// records as held, for every document here, however small the body limit.
    @Test(arguments: [
        ("/xml/rss?per_page=3000&total=3000", ", records: rss.channel.item"),
        ("/xml/soap", ", records: Envelope.Body.GetOrdersResponse.Order"),
    ])
    func aStreamedDocumentGivesTheRecordsAHeldOneGives(_ path: String, _ extra: String) async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(manager(path, extra))
        let held = try await server.manager("m", in: pipeline).load()
        let streamed = try await server.manager("m", in: pipeline, transport: LiveTransport(maxBodyBytes: 1024), streamsBodies: true).load()
        #expect(held.recordFile == nil && streamed.recordFile != nil)
        #expect(try streamed.allRecords() == held.records)
        #expect(!held.records.isEmpty)
    }

    @Test(arguments: [
        ("/xml/bad", "the file is not well-formed XML at line 4: Opening and ending tag mismatch"),
        ("/xml/bomb", "the file is not well-formed XML: Detected an entity reference loop"),
    ])
    func aStreamedDocumentThatDoesNotReadSaysWhy(_ path: String, _ message: String) async throws {
        let server = try TestServer()
        let landing = try await server.manager("m", in: server.pipeline(manager(path, "")), streamsBodies: true).load()
        #expect(throws: SourceError.self) { try landing.allRecords() }
        do { _ = try landing.allRecords() } catch { #expect("\(error)".contains(message), "\(error)") }
    }

    @Test(arguments: [
        ("/xml/bad", "the xml body is not well-formed XML at line 4: Opening and ending tag mismatch"),
        ("/xml/bomb", "the xml body is not well-formed XML: Detected an entity reference loop"),
    ])
    func aDocumentThatDoesNotReadLandsNothingAndSaysWhy(_ path: String, _ message: String) async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(manager(path, ""))
        do {
            _ = try await server.manager("m", in: pipeline).load()
            Issue.record("\(path) landed")
        } catch {
            #expect((error as? ManagerError)?.kind == .invalidBody)
            #expect("\(error)".contains(message) && "\(error)".contains("nothing of this page was landed"), "\(error)")
        }
    }
}
