extension JSON {
    /// How the bytes of a valid JSON document stand to what ``write(_:into:)`` prints for the
    /// value they parse to (``writtenFormVerdict(_:)``).
    @_spi(Engine) @frozen
    public enum WrittenFormVerdict: Sendable, Equatable {
        /// The bytes are what the writer prints.
        case written
        /// They differ only in whitespace outside strings, in the form of numbers (`1.0`, `12.50`,
        /// `1E+2`, `-0`, more than 15 digits) and in the escapes of string values (never keys):
        /// `\/`, a `\u` escape the writer writes otherwise or not at all (`\u00e9`, `\u000A`, a
        /// surrogate pair or a lone surrogate), a raw DEL.
        /// ``JSONParser/appendWrittenForm(of:verdict:to:)`` rewrites them.
        case rewritable
        /// Anything else, or not proven: the value has to be parsed and printed.
        case unproven
    }

    /// Whether `bytes`, a valid JSON document (one ``JSONParser`` accepts), are exactly the bytes
    /// ``write(_:into:)`` prints for the value they parse to — so that a record passed on
    /// unchanged can be written by copying its line, without parsing it into values and printing
    /// them again. The same as ``writtenFormVerdict(_:)`` being ``WrittenFormVerdict/written``.
    @_spi(Engine) public static func isWrittenForm(_ bytes: UnsafeRawBufferPointer) -> Bool {
        writtenFormVerdict(bytes) == .written
    }

    /// How `bytes`, a valid JSON document (one ``JSONParser`` accepts), stand to the bytes
    /// ``write(_:into:)`` prints for the value they parse to: the same, different only in
    /// whitespace, numbers' forms and their string values' escapes, or unproven.
    ///
    /// Unproven, conservatively, is anything else: a key with an escape other than the writer's
    /// own (`\"`, `\\`, `\b \f \n \r \t`, and `\u00XX` in lowercase for the other control
    /// characters and DEL) or with a raw DEL; an object key with a byte past ASCII (keys equal
    /// under Unicode equivalence are one key once parsed); a key that repeats in its object. A
    /// number is the writer's when `JSONParser.isCanonicalNumber` says so. Bytes that are not valid
    /// JSON give no meaningful answer.
    @_spi(Engine) public static func writtenFormVerdict(_ bytes: UnsafeRawBufferPointer) -> WrittenFormVerdict {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else { return .unproven }
        // Its bookkeeping on the stack: arrays made and freed per document were a fifth of it. A
        // temporary allocation past 1 KiB is a heap one on Linux (~400 instructions a document),
        // so the check runs with room for 32 keys 16 levels deep first, and again with room for
        // its limits only for a document that needs more.
        return verdict(base, bytes.count, room: .small) ?? verdict(base, bytes.count, room: .limits) ?? .unproven
    }

    /// The verdict on `end` bytes at `base`, with `room` for bookkeeping; `nil` when that was not
    /// enough.
    private static func verdict(_ base: UnsafePointer<UInt8>, _ end: Int, room: WrittenFormCheck.Room) -> WrittenFormVerdict? {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: room.capacity) {
            guard let scratch = $0.baseAddress else { return .unproven }
            var form = WrittenFormCheck(base: base, end: end, scratch: scratch, room: room)
            guard form.check() else { return form.ranOutOfRoom ? nil : .unproven }
            return form.rewritable ? .rewritable : .written
        }
    }
}

/// One pass of ``JSON/writtenFormVerdict(_:)`` over a document's bytes.
struct WrittenFormCheck {
    /// The deepest nesting and the most keys of the open objects a check follows.
    struct Room {
        let depth: Int, keys: Int
        /// What fits 1 KiB of the stack.
        static let small = Room(depth: 16, keys: 32)
        /// The limits: past them a document is unproven (the caller prints the value instead).
        static let limits = Room(depth: 64, keys: 512)
        /// The scratch words a check with this room uses.
        var capacity: Int { 2 * depth + 3 * keys }
    }

    let room: Room
    /// Whether the check said no because the document nests deeper or has more keys open than
    /// ``room`` holds.
    private(set) var ranOutOfRoom = false

    let base: UnsafePointer<UInt8>
    let end: Int
    private var i = 0
    /// Per open container, a bit: set for an object (the innermost is bit `depth - 1`).
    private var objects: UInt64 = 0
    private var depth = 0
    /// Per open object, where its keys start in `keys`; and the keys of the open objects, each
    /// as its start, its length and its first bytes as a word (in the caller's scratch memory).
    private let keyStarts: UnsafeMutablePointer<Int>
    private let keys: UnsafeMutablePointer<Int>
    /// Per open object, two bits of a hash of each of its keys so far: a key whose bits are not
    /// both set is new without comparing it with the others (comparing each key with every one
    /// before it was a tenth of the check).
    private let keyBits: UnsafeMutablePointer<UInt64>
    private var keyCount = 0
    private var objectDepth = 0
    /// Whether the document had whitespace outside strings, a number in another form than the
    /// writer's, or a string value with an escape the writer writes otherwise or a raw DEL.
    private(set) var rewritable = false

    /// A check of `end` bytes at `base`, its bookkeeping in `scratch` (``Room/capacity`` words).
    init(base: UnsafePointer<UInt8>, end: Int, scratch: UnsafeMutablePointer<Int>, room: Room) {
        self.base = base
        self.end = end
        self.room = room
        keyStarts = scratch
        keyBits = UnsafeMutableRawPointer(scratch + room.depth).assumingMemoryBound(to: UInt64.self)
        keys = scratch + 2 * room.depth
    }

    /// Notes that the document needs more room; `false`.
    private mutating func outOfRoom() -> Bool {
        ranOutOfRoom = true
        return false
    }

    private var innermostIsObject: Bool { depth > 0 && objects >> UInt64(depth - 1) & 1 == 1 }

    mutating func check() -> Bool {
        while i < end {
            let c = base[i]
            switch c {
            case UInt8(ascii: "\""):
                guard string(key: false) else { return false }
            case UInt8(ascii: "{"):
                guard depth < room.depth else { return outOfRoom() }
                objects |= 1 << UInt64(depth)
                depth += 1
                keyStarts[objectDepth] = keyCount
                keyBits[objectDepth] = 0
                objectDepth += 1
                i += 1
                skipWhitespace()
                guard i < end, base[i] == UInt8(ascii: "}") || member() else { return false }
            case UInt8(ascii: "["):
                guard depth < room.depth else { return outOfRoom() }
                objects &= ~(1 << UInt64(depth))
                depth += 1
                i += 1
            case UInt8(ascii: "}"):
                guard depth > 0, objectDepth > 0 else { return false }
                depth -= 1
                objectDepth -= 1
                keyCount = keyStarts[objectDepth]
                i += 1
            case UInt8(ascii: "]"):
                guard depth > 0 else { return false }
                depth -= 1
                i += 1
            case UInt8(ascii: ","):
                i += 1
                guard !innermostIsObject || member() else { return false }
            case UInt8(ascii: "t"), UInt8(ascii: "n"): i += 4
            case UInt8(ascii: "f"): i += 5
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                // Digits, a fraction's and an exponent's: a number in another form than the
                // writer's (an exponent, a trailing zero, more than 15 digits) is rewritten.
                let start = i
                if c == UInt8(ascii: "-") { i += 1 }
                i = Scanner.digitEnd(base, from: i, end: end)
                if i < end, base[i] == UInt8(ascii: ".") { i = Scanner.digitEnd(base, from: i + 1, end: end) }
                if i < end, base[i] | 0x20 == UInt8(ascii: "e") {
                    i += 1
                    if i < end, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
                    i = Scanner.digitEnd(base, from: i, end: end)
                    rewritable = true
                } else if !JSONParser.isCanonicalNumber(base, from: start, to: i) {
                    rewritable = true
                }
            case 0x20, 0x09, 0x0A, 0x0D:
                skipWhitespace()
            default:
                // Anything a valid document does not hold here.
                return false
            }
        }
        return true
    }

    /// A member's key at or after the cursor and the colon after it (whitespace around them is
    /// rewritten: the writer puts nothing between).
    @inline(__always)
    private mutating func member() -> Bool {
        skipWhitespace()
        guard i < end, base[i] == UInt8(ascii: "\""), key() else { return false }
        skipWhitespace()
        guard i < end, base[i] == UInt8(ascii: ":") else { return false }
        i += 1
        return true
    }

    /// Moves past whitespace at the cursor, noting that it is to be rewritten.
    @inline(__always)
    private mutating func skipWhitespace() {
        while i < end, base[i] == 0x20 || base[i] == 0x0A || base[i] == 0x0D || base[i] == 0x09 {
            rewritable = true
            i += 1
        }
    }

    /// An object's key at the cursor: ASCII, in the writer's form, and not one its object had.
    private mutating func key() -> Bool {
        let start = i + 1
        guard string(key: true) else { return false }
        let count = i - 1 - start
        guard objectDepth > 0 else { return false }
        guard keyCount < room.keys else { return outOfRoom() }
        // Compared by length and first eight bytes (a key is followed by at least `":` and a
        // value's byte, so a word read from its start lies in the document when 8 bytes do).
        let word = start + 8 <= end ? Self.prefixWord(base + start, count) : Self.prefixWordSlowly(base + start, count)
        let hash = (UInt64(bitPattern: Int64(word)) ^ UInt64(count)) &* 0x9E37_79B9_7F4A_7C15
        let bits: UInt64 = 1 << (hash >> 58) | 1 << (hash >> 52 & 63)
        if keyBits[objectDepth - 1] & bits == bits {
            for k in keyStarts[objectDepth - 1]..<keyCount where keys[3 * k + 1] == count && keys[3 * k + 2] == word {
                if count <= 8 || CMemory.equal(base + keys[3 * k], base + start, count: count) { return false }
            }
        }
        keyBits[objectDepth - 1] |= bits
        keys[3 * keyCount] = start
        keys[3 * keyCount + 1] = count
        keys[3 * keyCount + 2] = word
        keyCount += 1
        return true
    }

    /// A key's first eight bytes (fewer when shorter, the rest zero) as a word, read at once.
    @inline(__always)
    private static func prefixWord(_ key: UnsafePointer<UInt8>, _ count: Int) -> Int {
        let word = UnsafeRawPointer(key).loadUnaligned(as: UInt64.self)
        return Int(bitPattern: UInt(count >= 8 ? word : word & ((1 << UInt64(8 * count)) - 1)))
    }

    /// ``prefixWord(_:_:)`` a byte at a time, near the document's end.
    private static func prefixWordSlowly(_ key: UnsafePointer<UInt8>, _ count: Int) -> Int {
        var word: UInt64 = 0
        for k in 0..<min(count, 8) { word |= UInt64(key[k]) << UInt64(8 * k) }
        return Int(bitPattern: UInt(word))
    }

    /// The string at the cursor (its opening quote) in the writer's form, or a value whose escapes
    /// only need rewriting (noted in ``rewritable``); moves past it. A key's bytes must be
    /// ASCII, its escapes the writer's.
    @inline(__always)
    private mutating func string(key: Bool) -> Bool {
        i += 1
        while true {
            i = Self.firstSpecial(base, from: i, end: end, stopAtHighBytes: key)
            guard i < end else { return false }
            switch base[i] {
            case UInt8(ascii: "\""):
                i += 1
                return true
            case UInt8(ascii: "\\"):
                guard i + 1 < end else { return false }
                switch base[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    // The writer's `\u00XX`: a control character without a short escape, or DEL.
                    guard i + 5 < end else { return false }
                    if base[i + 2] == UInt8(ascii: "0"), base[i + 3] == UInt8(ascii: "0"),
                        let high = Self.lowerHex(base[i + 4]), let low = Self.lowerHex(base[i + 5])
                    {
                        let c = high << 4 | low
                        if (c < 0x20 && ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(c)) || c == 0x7F {
                            i += 6
                            continue
                        }
                    }
                    guard !key else { return false }
                    rewritable = true
                    i += 6
                default:
                    // `\/`: the only other escape a valid document has.
                    guard !key else { return false }
                    rewritable = true
                    i += 2
                }
            case 0x7F where !key:
                rewritable = true
                i += 1
            default:
                // In a key, DEL or a byte past ASCII.
                return false
            }
        }
    }

    private static func lowerHex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The index of the first quote, backslash or DEL in `base[start..<end]` (and with
    /// `stopAtHighBytes`, byte past ASCII); `end` when there is none. Eight bytes at a time.
    @inline(__always)
    static func firstSpecial(_ base: UnsafePointer<UInt8>, from start: Int, end: Int, stopAtHighBytes: Bool) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var j = start
        while j &+ 8 <= end {
            let x = UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self)
            let quote = x ^ (ones &* 0x22)
            let backslash = x ^ (ones &* 0x5C)
            let delete = x ^ (ones &* 0x7F)
            var flagged = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((delete &- ones) & ~delete)
            flagged = stopAtHighBytes ? flagged | x : flagged & ~x
            let hits = flagged & (ones &* 0x80)
            if hits != 0 { return j &+ hits.trailingZeroBitCount / 8 }
            j &+= 8
        }
        while j < end {
            let c = base[j]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c == 0x7F || (stopAtHighBytes && c >= 0x80) { return j }
            j += 1
        }
        return end
    }
}
