@_spi(Fuzzing) import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// Bodies compressed in transit (`Content-Encoding: gzip`/`deflate`, asked for on every request)
/// and gzip files (an export's `.ndjson.gz`), through both HTTP clients: inflated before landing,
/// a damaged one refused whole, one that inflates past the body limit refused without being held.
@Suite(.timeLimit(.minutes(10))) struct CompressedBodyTests {
    private func pipeline(_ server: TestServer, _ query: String, extra: String = "") throws -> Pipeline {
        try server.pipeline(
            service(extra)
                + "\nmanagers:\n  m: { service: api, path: /compressed, params: { \(query) }, records: data.items, "
                + "paging: { policy: page, param: page, stop: [empty_page] } }")
    }

    @Test(arguments: ["gzip", "deflate", "raw-deflate", "two-members"], LiveTransport.Client.allCases)
    func aCompressedBodyIsInflatedOnEveryPage(_ encoding: String, client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let manager = try server.manager(
            "m", in: pipeline(server, "as: \(encoding), per_page: 10"), transport: LiveTransport(client: client))
        let (records, pages, _) = try await manager.loadAll()
        #expect(records.count == 47)
        #expect(pages == 6)
        #expect(records[4] == ["id": 5, "name": "商品 5", "price": 6.25, "tags": ["t2"]])
    }

    @Test func aServiceThatSaysIdentityGetsNoCompression() async throws {
        let server = try TestServer()
        let pipeline = try pipeline(server, "as: gzip", extra: "headers: { Accept-Encoding: identity }")
        do {
            _ = try await server.manager("m", in: pipeline).load()
            Issue.record("the server compressed what the request did not accept")
        } catch {
            #expect((error as? ManagerError)?.status == 406, "the request said identity: \(error)")
        }
    }

    @Test func aGzipFileIsReadAsItsFormat() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + "\nmanagers:\n  m: { service: api, path: /compressed, format: ndjson, params: { as: gzip-file, per_page: 5 } }")
        let records = try await server.manager("m", in: pipeline).load().records
        #expect(records.map { $0.objectValue?["id"] } == [1, 2, 3, 4, 5])
    }

    @Test(arguments: LiveTransport.Client.allCases)
    func aDamagedBodyLandsNothingAndSaysWhy(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        for (query, message) in [
            ("as: truncated", "the compressed data ends early"),
            ("as: br", "the body is encoded 'br', which was not asked for (the request accepts gzip, deflate)"),
        ] {
            do {
                _ = try await server.manager("m", in: pipeline(server, query), transport: LiveTransport(client: client)).load()
                Issue.record("\(query) landed")
            } catch {
                #expect((error as? ManagerError)?.kind == .invalidBody, "\(error)")
                #expect("\(error)".contains(message) && "\(error)".contains("nothing of it was landed"), "\(error)")
            }
        }
    }

    /// A body streamed to a file in pieces of 1 to 17 bytes (as a download is stored) gives what
    /// the same body inflated whole gives — the bytes, or a refusal — for generated bodies: gzip
    /// (one or two members, zero padding), zlib and raw deflate, a gzip file, each cut short or
    /// with a byte changed now and then, raw deflate that looks like zlib, and noise.
    @Test func aBodyStreamedInPiecesInflatesAsOneHeldWhole() throws {
        var generator = SeededGenerator(seed: 4040)
        var outcomes = (inflated: 0, refused: 0)
        for round in 0..<400 {
            let size = Int(generator.next() % 3000)
            let repetitive = generator.next() % 2 == 0
            let content = (0..<size).map { index in
                repetitive ? UInt8(ascii: "a") + UInt8(index % 7) : UInt8(truncatingIfNeeded: generator.next())
            }
            let (encoding, windowBits): (String, Int32) = [("gzip", 31), ("deflate", 15), ("deflate", -15), ("", 31)][
                Int(generator.next() % 4)]
            var body = ContentDecodingFuzzing.compressed(content, windowBits: windowBits)
            switch generator.next() % 8 {
            case 0 where windowBits == 31: body += ContentDecodingFuzzing.compressed(content.reversed(), windowBits: 31)
            case 1 where windowBits == 31: body += [0, 0, 0]
            case 2: body = Array(body.prefix(Int(generator.next() % UInt64(body.count + 1))))
            case 3 where !body.isEmpty: body[Int(generator.next() % UInt64(body.count))] ^= 0x5A
            case 4: body = [0x78, 0x01, 0x00, 0xFE, 0xFF, UInt8(ascii: "a"), 0x03, 0x00]
            case 5: body = (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            default: break
            }
            let pieces = (0..<3).map { _ in 1 + Int(generator.next() % 17) }
            let whole = ContentDecodingFuzzing.decode(body, encoding: encoding, limit: 1 << 24).map { $0 ?? body }
            let streamed = ContentDecodingFuzzing.decodeStreamed(body, encoding: encoding, pieces: pieces)
            switch (whole, streamed) {
            case (.success(let a), .success(let b)):
                outcomes.inflated += 1
                #expect(a == b, "round \(round) (\(encoding), pieces \(pieces)): other bytes")
            case (.failure, .failure):
                outcomes.refused += 1
            default:
                Issue.record("round \(round) (\(encoding) \(windowBits), pieces \(pieces)): whole \(whole), streamed \(streamed)")
            }
        }
        #expect(outcomes.inflated > 150 && outcomes.refused > 50, "\(outcomes)")
    }

    /// Raw deflate data can start with two bytes that pass as a zlib header (found writing
    /// `FuzzContentDecoding`): a stored block 0x78, its length's first byte 0x01.
    @Test func rawDeflateThatLooksLikeZlibStillInflates() {
        let raw: [UInt8] = [0x78, 0x01, 0x00, 0xFE, 0xFF, UInt8(ascii: "a"), 0x03, 0x00]
        let decoded = ContentDecodingFuzzing.decode(raw, encoding: "deflate", limit: 1024)
        #expect((try? decoded.get()) == Array("a".utf8), "\(decoded)")
    }

    @Test(arguments: LiveTransport.Client.allCases)
    func aBodyThatInflatesPastTheLimitIsRefused(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        // 4 MiB of zeros: about 4 KiB on the wire, against a 1 MiB limit.
        let manager = try server.manager(
            "m", in: pipeline(server, "as: bomb, size: 4194304"), transport: LiveTransport(maxBodyBytes: 1 << 20, client: client))
        do {
            _ = try await manager.load()
            Issue.record("the body was inflated past the limit")
        } catch {
            #expect((error as? ManagerError)?.kind == .invalidBody)
            #expect("\(error)".contains("compressed body inflates past 1048576 bytes; nothing of it was landed"), "\(error)")
        }
    }
}
