import ReformSDK

/// Encodes values for a spill file: a compact binary form that reads back exactly the value that
/// was written (int stays int, a double keeps its bits, members keep their order).
struct SpillWriter {
    /// The bytes encoded so far.
    var bytes: [UInt8] = []

    /// An unsigned integer, 7 bits a byte (LEB128).
    mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed integer, zigzag-encoded so that small negatives stay short.
    mutating func int(_ value: Int) {
        unsigned(Self.zigzag(value))
    }

    /// `value` zigzag-encoded: small negatives become small unsigned numbers.
    static func zigzag(_ value: Int) -> UInt64 {
        UInt64(bitPattern: Int64(value << 1 ^ value >> (Int.bitWidth - 1)))
    }

    /// Writes `value` at `target` as ``unsigned(_:)`` appends it, for a writer into memory of its
    /// own (``SpillFile/appendLineRun(_:prefetch:key:line:)``); how many bytes (at most 10).
    @inline(__always)
    static func writeUnsigned(_ value: UInt64, at target: UnsafeMutableRawPointer) -> Int {
        var rest = value
        var count = 0
        while rest >= 0x80 {
            target.storeBytes(of: UInt8(truncatingIfNeeded: rest) | 0x80, toByteOffset: count, as: UInt8.self)
            rest >>= 7
            count += 1
        }
        target.storeBytes(of: UInt8(rest), toByteOffset: count, as: UInt8.self)
        return count + 1
    }

    /// A string as its UTF-8 length and bytes.
    mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A block of bytes as its length and the bytes.
    mutating func block(_ block: UnsafeRawBufferPointer) {
        unsigned(UInt64(block.count))
        bytes.append(contentsOf: block)
    }

    /// A value, recursively.
    mutating func value(_ value: Value) {
        switch value {
        case .null: bytes.append(0)
        case .bool(let b): bytes.append(b ? 2 : 1)
        case .int(let i):
            bytes.append(3)
            int(i)
        case .double(let d):
            bytes.append(4)
            var bits = d.bitPattern
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
            }
        case .string(let s):
            bytes.append(5)
            string(s)
        case .array(let items):
            bytes.append(6)
            unsigned(UInt64(items.count))
            for item in items { self.value(item) }
        case .object(let object):
            bytes.append(7)
            unsigned(UInt64(object.count))
            for member in object.members {
                string(member.key)
                self.value(member.value)
            }
        }
    }
}

/// Decodes what a ``SpillWriter`` encoded, from `bytes[position..<end]`.
///
/// Reads memory it does not own (a run reader's buffer): it is used, and dropped, while that
/// memory holds the entry.
struct SpillReader {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    private let end: Int

    /// A reader of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        end = bytes.count
    }

    private static let corrupt = SpillError(message: "a sort's temporary file read back different bytes than were written to it")

    private mutating func byte() throws(SpillError) -> UInt8 {
        guard position < end else { throw SpillReader.corrupt }
        defer { position += 1 }
        return bytes[position]
    }

    /// An unsigned integer (LEB128).
    mutating func unsigned() throws(SpillError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64 else { throw SpillReader.corrupt }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    /// A count or length, checked against the bytes left.
    private mutating func count() throws(SpillError) -> Int {
        let n = try unsigned()
        guard n <= UInt64(end - position) else { throw SpillReader.corrupt }
        return Int(n)
    }

    /// A zigzag-encoded signed integer.
    mutating func int() throws(SpillError) -> Int {
        let raw = try unsigned()
        return Int(Int64(bitPattern: raw >> 1 ^ (0 &- (raw & 1))))
    }

    /// A string.
    mutating func string() throws(SpillError) -> String {
        let n = try count()
        defer { position += n }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<position + n]), as: UTF8.self)
    }

    /// A block of bytes that ``SpillWriter/block(_:)`` wrote, where it lies in the memory read,
    /// to be read there rather than copied out (as long as that memory holds it).
    mutating func blockInPlace() throws(SpillError) -> UnsafeRawBufferPointer {
        let n = try count()
        defer { position += n }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + n])
    }

    /// A value.
    mutating func value() throws(SpillError) -> Value {
        switch try byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .int(try int())
        case 4:
            var bits: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 8) { bits |= UInt64(try byte()) << UInt64(shift) }
            return .double(Double(bitPattern: bits))
        case 5: return .string(try string())
        case 6:
            let n = try count()
            var items: [Value] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try value()) }
            return .array(items)
        case 7:
            let n = try count()
            var object = Object(minimumCapacity: n)
            for _ in 0..<n {
                let key = try string()
                object.appendNew(key: key, value: try value())
            }
            return .object(object)
        default:
            throw SpillReader.corrupt
        }
    }
}
