import Foundation
import ReformSDK
import ReformTestSupport
import Testing

/// Compares ``JSON/write(_:into:)`` and ``JSON/writePretty(_:indent:into:)`` with jq byte for byte.
@Suite(.timeLimit(.minutes(10))) struct JSONJQComparisonTests {
    static let jq = "/usr/bin/jq"

    /// Documents jq and Reform must print identically (ints stay within 2^53: jq 1.6 keeps only doubles).
    static let samples = #"""
        {"id":123456,"name":"Some name 123","title":"Bright two-room flat","imageUrl":"https://img.example.com/zufang/123456.jpg"}
        [1e-5, 1.5e-7, 1e16, 1e100, 1e15, 1.0, -0.0, 0.1, 0.0001, 0.001234, 1e17, 1.234567e20, 5e-324]
        [1.7976931348623157e308, 1e1000, -1e1000, 123456789.123456789, 4.35, 0.3, 1e21, 2.5e-3, 100, -7, 9007199254740991]
        [2.2250738585072014e-308, 1e-7, 0.1e-3, 12.34e5, 1E400, 3.141592653589793, 1e22, 1e23, 6.02214076e23]
        "\u0000\u001f\u007f\b\f\n\r\t\"\\\/ é \ud83d\ude00 \u2028 \u0080"
        {"a":1,"b":2,"a":3,"nested":{"x":[],"y":{},"z":[[],[{}]]}}
        {"é":"中文","":"",  "k" : [ true , false , null ] }
        "\udc00 lone low surrogate"
        [0.1, 0.2, 0.30000000000000004, 1.1, 2.675, 1e-4, 9.999999999999999e-5, 123e-20]
        """#

    @Test func compactOutputMatchesJQ() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.jq) else {
            print("skipped: \(Self.jq) not found; install jq 1.6 to compare output with it")
            return
        }
        let expected = try await Self.run(["-c", "."], input: Self.samples)
        var ours: [UInt8] = []
        for value in try JSON.parseSequence(Self.samples) {
            JSON.write(value, into: &ours)
            ours.append(UInt8(ascii: "\n"))
        }
        let oursText = String(decoding: ours, as: UTF8.self)
        for (a, b) in zip(oursText.split(separator: "\n"), expected.split(separator: "\n")) {
            #expect(a == b)
        }
        #expect(ours == Array(expected.utf8))
    }

    @Test func prettyOutputMatchesJQ() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.jq) else {
            print("skipped: \(Self.jq) not found; install jq 1.6 to compare output with it")
            return
        }
        let expected = try await Self.run(["."], input: Self.samples)
        var ours: [UInt8] = []
        for value in try JSON.parseSequence(Self.samples) {
            JSON.writePretty(value, into: &ours)
            ours.append(UInt8(ascii: "\n"))
        }
        #expect(String(decoding: ours, as: UTF8.self) == expected)
    }

    @Test func randomDoublesMatchJQ() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.jq) else {
            print("skipped: \(Self.jq) not found; install jq 1.6 to compare output with it")
            return
        }
        var generator = SplitMix64(seed: 0x5EED)
        var values: [Value] = []
        for _ in 0..<2000 {
            let bits = generator.next()
            let d = Double(bitPattern: bits)
            if d.isFinite { values.append(.double(d)) }
            let scaled = Double(Int64(bitPattern: generator.next()) >> 20) / 1000
            values.append(.double(scaled))
        }
        let ours = JSON.compactString(.array(values))
        let expected = try await Self.run(["-c", "."], input: ours)
        #expect(ours + "\n" == expected)
        // And what we print reads back to the same doubles.
        #expect(try JSON.parse(ours) == .array(values))
    }

    /// Runs jq on `input` (passed as a file, so that neither pipe can fill up) and returns its output.
    static func run(_ arguments: [String], input: String) async throws -> String {
        let inputPath = NSTemporaryDirectory() + "reform-jq-\(UUID().uuidString).json"
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
        defer { try? FileManager.default.removeItem(atPath: inputPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: jq)
        process.arguments = arguments + [inputPath]
        return try await runToEnd(process).stdout
    }
}

/// A small deterministic generator (SplitMix64) so that failures reproduce.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
