import Foundation
import ReformEngine
import ReformEngineTesting
import ReformTestSupport
import ReformYAML
import Testing

/// `truncate`, the first step written as one component (`Sources/ReformEngine/Steps/Truncate`):
/// its meaning on every tier, its keys through a chain, and its load errors. The generated tier
/// tests cover it with the other steps through its own `sample`, with no case written for it.
@Suite("The truncate step", .timeLimit(.minutes(10)))
struct TruncateStepTests {
    static let pipeline = """
        reform: 1
        managers: { a: {} }
        reformers:
          picked:
            steps:
              - pick: [id, title]
              - truncate: { title: 5 }
          alone:
            steps: [ { truncate: { title: 2, note: 0 } } ]
          named:
            keys: { id: kID, title: kTitle }
            map: { id: id, title: title? }
          short:
            steps: [ { truncate: { title: 3 } } ]
        runs:
          default: { reform: [picked], output: { format: ndjson } }
          alone: { reform: [alone], output: { format: ndjson } }
          named: { reform: [named, short], output: { format: ndjson } }
        """

    static let lines = [
        #"{"id":1,"title":"Hello, world"}"#,
        #"{"id":2,"title":"上海市浦东新区"}"#,
        #"{"id":3,"title":"e\u0301te\u0301s de 2024"}"#,
        #"{"id":4,"title":"👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦"}"#,
        #"{"id":5,"title":null}"#,
        #"{"id":6,"title":"short"}"#,
        #"{"id":7,"title":42}"#,
        #"{"id":8,"title":"a\"b\\c\/d\u00e9"}"#,
    ]

    /// Characters are what a reader sees as one: an accented letter written with a combining mark
    /// and a family emoji each count once and are never split.
    @Test func cutsStringsToCharactersAlikeOnEveryTier() throws {
        let (outcomes, differences) = try TierCheck(pipeline: Self.pipeline, lines: Self.lines).outcomes()
        #expect(differences.isEmpty, "\(differences)")
        #expect(
            outcomes[0].output == """
                == out.ndjson ==
                {"id":1,"title":"Hello"}
                {"id":2,"title":"上海市浦东"}
                {"id":3,"title":"e\u{301}te\u{301}s "}
                {"id":4,"title":"👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦"}
                {"id":5,"title":null}
                {"id":6,"title":"short"}
                {"id":8,"title":"a\\"b\\\\c"}

                """)
        #expect(
            outcomes[0].deadLetters.contains(
                "step 'truncate' cuts strings, but 'title' is int; convert it to a string first (convert: { title: string })"))
        #expect(outcomes.dropFirst().contains { $0.writtenDirectly == 7 }, "not vacuous: the compiled chain wrote the records")
    }

    /// A key the record lacks is left alone, and a length of 0 leaves an empty string.
    @Test func leavesMissingKeysAloneAndCutsToNothing() throws {
        let lines = [#"{"id":1,"note":"gone","title":"kept"}"#, #"{"id":2}"#, #"{"id":3,"note":null}"#]
        let (outcomes, differences) = try TierCheck(pipeline: Self.pipeline, lines: lines, runName: "alone").outcomes()
        #expect(differences.isEmpty, "\(differences)")
        #expect(
            outcomes[0].output
                == "== out.ndjson ==\n" + #"{"id":1,"note":"","title":"ke"}"# + "\n" + #"{"id":2}"# + "\n" + #"{"id":3,"note":null}"# + "\n"
        )
    }

    /// Names are the ones a reformer declares, read as the constants the records carry.
    @Test func namesResolveToTheDeclaredConstants() throws {
        let lines = [#"{"id":1,"title":"Hangzhou"}"#, #"{"id":2}"#]
        let (outcomes, differences) = try TierCheck(pipeline: Self.pipeline, lines: lines, runName: "named").outcomes()
        #expect(differences.isEmpty, "\(differences)")
        #expect(
            outcomes[0].output
                == "== out.ndjson ==\n" + #"{"kID":1,"kTitle":"Han"}"# + "\n" + #"{"kID":2,"kTitle":null}"# + "\n")
    }

    /// Each mistake is reported at its line and column, with what was expected.
    @Test func mistakesAreReportedWhereTheyAre() throws {
        let found = try loadDiagnostics(
            """
            reform: 1
            managers: { a: {} }
            reformers:
              named: { keys: { id: kID, title: kTitle }, map: { id: id, title: title } }
              negative: { steps: [ { truncate: { title: -1 } } ] }
              empty: { steps: [ { truncate: {} } ] }
              bare: { steps: [ truncate ] }
              listed: { steps: [ { truncate: [title] } ] }
              misspelt: { steps: [ { truncat: { title: 3 } } ] }
              unknown: { steps: [ { truncate: { titel: 3 } } ] }
            runs:
              default: { reform: [named, unknown], output: { format: ndjson } }
            """)
        #expect(
            found == [
                "p.yaml:5:45: error: 'title' in step 'truncate' of reformer 'negative' must be between 0 and 9223372036854775807, not -1",
                "p.yaml:6:33: error: step 'truncate' of reformer 'empty' names no key; write it as 'truncate: { title: 40 }'",
                "p.yaml:7:20: error: step 'truncate' of reformer 'bare' needs an argument",
                "p.yaml:8:34: error: step 'truncate' of reformer 'listed' must be a mapping, not a list",
                "p.yaml:9:26: error: unknown step 'truncat' in reformer 'misspelt'; did you mean 'truncate'?; steps: explode, pick, "
                    + "drop, rename, defaults, convert, set, filter, select, flatten, truncate, sort, dedupe, limit",
                "p.yaml:10:25: error: step 'truncate' of reformer 'unknown' uses 'titel', which records do not carry at that point; "
                    + "did you mean 'title'?; they carry: id, title",
            ])
    }
}
