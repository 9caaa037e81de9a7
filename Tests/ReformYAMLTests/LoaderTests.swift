import ReformSDK
import ReformYAML
import Testing

/// Anchors, merge keys, locations, documents and keys.
@Suite(.timeLimit(.minutes(10)))
struct LoaderTests {
    private func load(_ yaml: String) throws -> [Value] { try YAMLLoader().loadValues(yaml) }

    @Test func locationsAreOneBasedAndCountCharacters() throws {
        let document = try #require(try YAMLLoader().load("é: [x, \"y\"]\nb:\n  - z\n").first)
        guard case .mapping(let pairs) = document.content, case .sequence(let flow) = pairs[0].value.content else {
            Issue.record("unexpected shape")
            return
        }
        #expect(document.location == SourceLocation(line: 1, column: 1))
        #expect(pairs[0].value.location == SourceLocation(line: 1, column: 4))
        #expect(flow[1].location == SourceLocation(line: 1, column: 8))
        #expect(pairs[1].key.location == SourceLocation(line: 2, column: 1))
        #expect(pairs[1].value.location == SourceLocation(line: 3, column: 3))
    }

    @Test func aliasesExpandToCopies() throws {
        let values = try load("a: &x {k: [1, 2]}\nb: *x\nc: &s str\nd: *s\n")
        #expect(values == [["a": ["k": [1, 2]], "b": ["k": [1, 2]], "c": "str", "d": "str"]])
    }

    @Test func anchorsAreRedefinable() throws {
        #expect(try load("- &a 1\n- *a\n- &a 2\n- *a\n") == [[1, 1, 2, 2]])
    }

    @Test func mergeKeyTakesAMapping() throws {
        let yaml = """
            base: &base {a: 1, b: 2}
            derived:
              <<: *base
              b: 3
              c: 4
            """
        let values = try load(yaml)
        #expect(values == [["base": ["a": 1, "b": 2], "derived": ["a": 1, "b": 3, "c": 4]]])
        #expect(values.first?.objectValue?["derived"]?.objectValue?.keys == ["a", "b", "c"])
    }

    @Test func explicitKeysWinEvenBeforeTheMerge() throws {
        #expect(try load("b: 3\n<<: {a: 1, b: 2}\n") == [["b": 3, "a": 1]])
    }

    @Test func earlierMergedMappingsWin() throws {
        let yaml = """
            - &one {x: 1, y: 1}
            - &two {x: 2, z: 2}
            - <<: [*one, *two]
              w: 0
            """
        #expect(try load(yaml)[0].arrayValue?[2] == ["x": 1, "y": 1, "z": 2, "w": 0])
    }

    @Test func quotedMergeKeyIsAPlainKey() throws {
        #expect(try load("'<<': {a: 1}\n") == [["<<": ["a": 1]]])
    }

    @Test func severalDocuments() throws {
        #expect(try load("--- 1\n--- a\n---\n...\n") == [1, "a", nil])
        #expect(try load("") == [])
        #expect(try load("# only a comment\n") == [])
    }

    @Test func scalarKeysBecomeTheirValuesText() throws {
        #expect(try load("1: a\n0x10: b\ntrue: c\n~: d\n1.50: e\n") == [["1": "a", "16": "b", "true": "c", "": "d", "1.50": "e"]])
    }

    @Test func tagsAreKept() throws {
        let document = try #require(try YAMLLoader().load("!!map {a: !custom 1}\n").first)
        #expect(document.tag == "tag:yaml.org,2002:map")
        guard case .mapping(let pairs) = document.content else { return }
        #expect(pairs[0].value.tag == "!custom")
    }

    @Test func loadsFiles() throws {
        let path = "/tmp/reform-yaml-\(UInt32.random(in: 0...UInt32.max)).yaml"
        let text = "a: 1\n"
        try #require(FileFixture.write(text, to: path))
        defer { FileFixture.remove(path) }
        let documents = try YAMLLoader().load(contentsOfFile: path)
        #expect(try documents.map { try $0.toValue() } == [["a": 1]])
        #expect(throws: YAMLError.self) { try YAMLLoader(limits: YAMLLimits(maxInputBytes: 3)).load(contentsOfFile: path) }
    }
}
