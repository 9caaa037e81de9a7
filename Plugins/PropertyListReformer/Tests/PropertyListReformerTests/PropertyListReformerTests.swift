import PropertyListReformer
import ReformPluginTesting
import ReformSDK
import Testing

@Suite(.timeLimit(.minutes(10)))
struct PropertyListReformerTests {
    static let samples: [String: [Value]] = [
        "zufang": [["id": 1, "name": "Jing'an studio", "title": "Rent", "imageUrl": "https://img.example.com/z/1.jpg"]],
        "xinfang": [["xinfang_id": 2, "xinfang_name": "River Garden", "xinfang_title": "New", "xinfang_imageUrl": nil]],
        "ershoufang": [
            ["esf_id": "3", "esf_name": "Old lane", "esf_title": "Second-hand", "esf_imageUrl": "https://img.example.com/e/3.png"]
        ],
    ]

    @Test func conforms() {
        let report = ReformerConformance.check(PropertyListPlugin(), samples: Self.samples)
        #expect(report.passed, "\(report)")
        #expect(report.checkedThreads)
    }

    @Test func conformsWhenNotStrict() {
        let report = ReformerConformance.check(PropertyListPlugin(), options: ["strict": false], samples: Self.samples)
        #expect(report.passed, "\(report)")
    }

    @Test func mapsEachManagersFieldsIntoTheConstantKeys() throws {
        var reformer = try PropertyListPlugin().makeWithDefaults()
        var out = RecordBuffer(origin: Origin(manager: ManagerRef(index: 1, name: "xinfang"), sequence: 1))
        let record = try #require(Self.samples["xinfang"]?.first)
        try reformer.reform(record, from: ManagerRef(index: 1, name: "xinfang"), into: &out)
        #expect(
            JSON.compactString(out.records[0].value)
                == #"{"kPropertyListDataKeyID":2,"kPropertyListDataKeyName":"River Garden","kPropertyListDataKeyTitle":"New","kPropertyListDataKeyImage":null}"#
        )
    }

    @Test func rejectsAListingWithoutAField() throws {
        var reformer = try PropertyListPlugin().makeWithDefaults()
        var out = RecordBuffer(origin: Origin(manager: ManagerRef(index: 0, name: "zufang"), sequence: 1))
        #expect(throws: RecordError.self) {
            try reformer.reform(["id": 1], from: ManagerRef(index: 0, name: "zufang"), into: &out)
        }
    }
}
