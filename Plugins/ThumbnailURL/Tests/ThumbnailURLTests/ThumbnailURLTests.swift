import ReformPluginTesting
import ReformSDK
import Testing
import ThumbnailURL

@Suite(.timeLimit(.minutes(10)))
struct ThumbnailURLTests {
    static let samples: [String: [Value]] = [
        "zufang": [
            ["kPropertyListDataKeyID": 101, "kPropertyListDataKeyImage": "https://img.example.com/zufang/101.jpg"],
            ["kPropertyListDataKeyID": 102, "kPropertyListDataKeyImage": nil],
        ]
    ]

    func thumbnail(_ url: String, _ options: Object = Object()) throws -> Value? {
        var reformer = try ThumbnailURLPlugin().make(options: PluginOptions(checking: options, against: ThumbnailURLPlugin().options))
        var out = RecordBuffer(origin: Origin(manager: ManagerRef(index: 0, name: "zufang"), sequence: 1))
        try reformer.reform(["kPropertyListDataKeyImage": .string(url)], from: ManagerRef(index: 0, name: "zufang"), into: &out)
        return out.records.first?.value.objectValue?["kPropertyListDataKeyImage"]
    }

    @Test func conforms() {
        let report = ReformerConformance.check(ThumbnailURLPlugin(), options: ["width": 200, "height": 150], samples: Self.samples)
        #expect(report.passed, "\(report)")
    }

    @Test func suffixStyleRenamesTheLastSegment() throws {
        #expect(
            try thumbnail("https://img.example.com/zufang/101.jpg", ["width": 200, "height": 150, "format": "webp"])
                == "https://img.example.com/zufang/101_200x150.webp")
        #expect(try thumbnail("http://img.example.com/a.b/photo?v=2#top") == "http://img.example.com/a.b/photo_200w?v=2#top")
    }

    @Test func queryStyleReplacesSizeParameters() throws {
        #expect(
            try thumbnail("https://cdn.example.com/p/1.png?w=800&sig=abc", ["style": "query", "width": 100, "host": "thumbs.example.com"])
                == "https://thumbs.example.com/p/1.png?sig=abc&w=100")
    }

    @Test func rejectsWhatIsNotAnImageURL() throws {
        #expect(throws: RecordError.self) { try thumbnail("ftp://example.com/a.jpg") }
        #expect(throws: RecordError.self) { try thumbnail("not a url") }
    }

    @Test func checksOptionRanges() {
        #expect(throws: PluginOptionError(option: "width", message: "must be between 1 and 4096, not 0")) {
            try ThumbnailURLPlugin().make(options: PluginOptions(checking: ["width": 0], against: ThumbnailURLPlugin().options))
        }
    }
}
