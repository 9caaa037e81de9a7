// Parses and re-serializes every line of an NDJSON file, several times, and prints throughput.
// Usage: json-bench FILE [ROUNDS] [OUT]  (OUT: write the last round's output there, to diff with jq)
import Glibc
import ReformSDK

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func readFile(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else {
        print("cannot open \(path)")
        exit(1)
    }
    defer { close(fd) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        result.append(contentsOf: chunk[0..<n])
    }
    return result
}

func main() {
    let arguments = CommandLine.arguments
    guard arguments.count >= 2 else {
        print("usage: json-bench FILE [ROUNDS] [OUT]")
        exit(2)
    }
    let bytes = readFile(arguments[1])
    let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
    var lines: [Range<Int>] = []
    var start = 0
    for i in bytes.indices where bytes[i] == UInt8(ascii: "\n") {
        if i > start { lines.append(start..<i) }
        start = i + 1
    }
    if start < bytes.count { lines.append(start..<bytes.count) }
    let megabytes = Double(bytes.count) / 1e6
    print("file: \(arguments[1]), \(lines.count) records, \(String(megabytes)) MB")

    var parser = JSONParser()
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count + bytes.count / 8)
    var bestParse = Double.infinity
    var bestBoth = Double.infinity
    var checksum = 0
    bytes.withUnsafeBytes { raw in
        for _ in 0..<rounds {
            var t0 = now()
            for line in lines {
                guard let value = try? parser.parse(UnsafeRawBufferPointer(rebasing: raw[line])) else { continue }
                if case .object(let o) = value { checksum &+= o.count }
            }
            bestParse = min(bestParse, now() - t0)
            t0 = now()
            output.removeAll(keepingCapacity: true)
            for line in lines {
                guard let value = try? parser.parse(UnsafeRawBufferPointer(rebasing: raw[line])) else { continue }
                JSON.write(value, into: &output)
                output.append(UInt8(ascii: "\n"))
            }
            bestBoth = min(bestBoth, now() - t0)
        }
    }
    // Write only: every record parsed once up front, then serialized.
    var parsed: [Value] = []
    parsed.reserveCapacity(lines.count)
    bytes.withUnsafeBytes { raw in
        for line in lines {
            if let value = try? parser.parse(UnsafeRawBufferPointer(rebasing: raw[line])) { parsed.append(value) }
        }
    }
    var bestWrite = Double.infinity
    for _ in 0..<rounds {
        let t0 = now()
        output.removeAll(keepingCapacity: true)
        for value in parsed {
            JSON.write(value, into: &output)
            output.append(UInt8(ascii: "\n"))
        }
        bestWrite = min(bestWrite, now() - t0)
    }

    func report(_ label: String, _ seconds: Double, records: Int, megabytes: Double) {
        let perRecord = seconds / Double(records) * 1e9
        print(
            "\(label): \(Int(seconds * 1000)) ms, \(Int(megabytes / seconds)) MB/s, "
                + "\(Int(Double(records) / seconds)) records/s, \(Int(perRecord)) ns/record")
    }
    report("parse only  ", bestParse, records: lines.count, megabytes: megabytes)
    report("write only  ", bestWrite, records: lines.count, megabytes: megabytes)
    report("parse+write ", bestBoth, records: lines.count, megabytes: megabytes)
    if arguments.count > 3 {
        let fd = open(arguments[3], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = output.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
    if checksum == 42 { print("") }
}

main()
