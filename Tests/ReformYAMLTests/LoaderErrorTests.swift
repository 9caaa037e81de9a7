import ReformSDK
import ReformYAML
import Testing

/// Exact error text: each problem names its place and says what is wrong.
@Suite(.timeLimit(.minutes(10)))
struct LoaderErrorTests {
    /// The error loading (and converting) `yaml` as `file`, rendered with its source line and caret.
    private func rendered(_ yaml: String, limits: YAMLLimits = .default) -> String {
        do {
            for document in try YAMLLoader(limits: limits).load(yaml, file: "p.yaml") {
                _ = try document.toValue(file: "p.yaml")
            }
            return "no error"
        } catch {
            return error.rendered(source: yaml)
        }
    }

    @Test func syntaxError() {
        #expect(
            rendered("a: 1\nb: \"open\n") == """
                p.yaml:3:1: error: found unexpected end of stream while scanning a quoted scalar

                ^
                p.yaml:2:4: note: the quoted scalar starts here
                b: "open
                   ^
                """)
        #expect(
            rendered("a: [1, 2\nb: 3\n") == """
                p.yaml:2:2: error: did not find expected ',' or ']' while parsing a flow sequence
                b: 3
                 ^
                p.yaml:1:4: note: the flow sequence starts here
                a: [1, 2
                   ^
                """)
    }

    @Test func billionLaughs() {
        var yaml = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for (previous, name) in zip(names, names.dropFirst()) {
            yaml += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
        }
        let clock = ContinuousClock()
        var message = ""
        let elapsed = clock.measure { message = rendered(yaml) }
        #expect(elapsed < .seconds(2))
        #expect(
            message == """
                p.yaml:6:36: error: alias '*e' expands past 1000000 alias-copied nodes (YAMLLimits.maxAliasNodes; raise it with reform --yaml-max-alias-nodes); \
                aliases that multiply like this ('billion laughs') are rejected
                f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
                                                   ^
                p.yaml:5:4: note: anchor '&e' is defined here
                e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
                   ^
                """)
    }

    @Test func excessiveDepth() {
        #expect(
            rendered(String(repeating: "[", count: 100_000)).prefix { $0 != "\n" } == """
                p.yaml:1:257: error: sequences and mappings nest deeper than 256 levels (YAMLLimits.maxDepth; raise it with reform --yaml-max-depth)
                """)
        #expect(
            rendered("- - - x\n", limits: YAMLLimits(maxDepth: 2)) == """
                p.yaml:1:5: error: sequences and mappings nest deeper than 2 levels (YAMLLimits.maxDepth; raise it with reform --yaml-max-depth)
                - - - x
                    ^
                """)
    }

    @Test func aliasPastDepth() {
        #expect(
            rendered("a: &a [[x]]\nb: [*a]\n", limits: YAMLLimits(maxDepth: 3)) == """
                p.yaml:2:5: error: alias '*a' nests sequences and mappings deeper than 3 levels (YAMLLimits.maxDepth; raise it with reform --yaml-max-depth)
                b: [*a]
                    ^
                """)
    }

    @Test func duplicateKeys() {
        #expect(
            rendered("name: a\nother: b\nname: c\n") == """
                p.yaml:3:1: error: duplicate key 'name' in this mapping; YAML requires each key once
                name: c
                ^
                p.yaml:1:1: note: key 'name' first appears here
                name: a
                ^
                """)
    }

    @Test func keysThatCollideAsText() {
        #expect(
            rendered("1: a\n'1': b\n") == """
                p.yaml:2:1: error: key '1' has the same text '1' as an earlier key of this mapping; JSON object keys must differ
                '1': b
                ^
                p.yaml:1:1: note: the earlier key is here
                1: a
                ^
                """)
    }

    @Test func badInt() {
        #expect(
            rendered("port: !!int eighty\n") == """
                p.yaml:1:7: error: 'eighty' is not a valid !!int; \
                write a decimal integer, 0o followed by octal digits, or 0x followed by hex digits
                port: !!int eighty
                      ^
                """)
    }

    @Test func tagOnWrongKind() {
        #expect(
            rendered("a: !!map [1]\n") == """
                p.yaml:1:4: error: tag !!map is for mappings, not a sequence
                a: !!map [1]
                   ^
                """)
    }

    @Test func undefinedAndRecursiveAliases() {
        #expect(
            rendered("a: *nothing\n") == """
                p.yaml:1:4: error: alias '*nothing' refers to no anchor '&nothing' defined before it in this document
                a: *nothing
                   ^
                """)
        #expect(
            rendered("a: &x [*x]\n") == """
                p.yaml:1:8: error: alias '*x' refers to a node that contains it; recursive structures cannot be loaded
                a: &x [*x]
                       ^
                """)
    }

    @Test func badMerge() {
        #expect(
            rendered("<<: 1\n") == """
                p.yaml:1:5: error: merge key '<<' takes a mapping or a sequence of mappings, not a scalar
                <<: 1
                    ^
                """)
    }

    @Test func complexKey() {
        #expect(
            rendered("? [a]\n: 1\n") == """
                p.yaml:1:3: error: a sequence cannot be a key here; keys must be scalars to become JSON object keys
                ? [a]
                  ^
                """)
    }

    @Test func inputTooLarge() {
        #expect(
            rendered("a: 1\n", limits: YAMLLimits(maxInputBytes: 2)) == """
                p.yaml:1:1: error: the input is 5 bytes, more than the limit of 2 (YAMLLimits.maxInputBytes; raise it with reform --yaml-max-bytes)
                a: 1
                ^
                """)
    }

    @Test func invalidUTF8() {
        do {
            _ = try YAMLLoader().load([0x61, 0x3A, 0x20, 0xFF, 0x0A], file: "p.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "p.yaml:1:4: error: invalid leading UTF-8 octet 0xFF")
        }
    }

    @Test func unreadableFile() {
        #expect(throws: YAMLError.self) { try YAMLLoader().load(contentsOfFile: "/nonexistent/p.yaml") }
        do {
            _ = try YAMLLoader().load(contentsOfFile: "/nonexistent/p.yaml")
        } catch {
            #expect(error.description == "/nonexistent/p.yaml:1:1: error: cannot read the file: No such file or directory")
            #expect(error.code == .unreadable)
        }
    }

    @Test func flowLinesMustBeIndented() {
        #expect(
            rendered("key: [a,\nb]\n") == """
                p.yaml:2:1: error: this line of a flow sequence must be indented by at least 1 space, \
                more than the block collection holding it
                b]
                ^
                p.yaml:1:6: note: the flow sequence starts here
                key: [a,
                     ^
                """)
        #expect(rendered("key: \"a\n  b\"\nlist:\n  - [x,\n    y]\n") == "no error")
    }

    @Test func errorConvertsToDiagnostics() throws {
        let error = YAMLError(
            code: .duplicateKey, file: "f.yaml", location: SourceLocation(line: 2, column: 1), message: "m",
            notes: [YAMLError.Note(location: SourceLocation(line: 1, column: 1), message: "n")])
        #expect(error.diagnostics.map(\.description) == ["f.yaml:2:1: error: m", "f.yaml:1:1: note: n"])
        #expect(error.diagnostic.severity == .error)
    }
}
