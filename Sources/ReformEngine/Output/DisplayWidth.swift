/// How many terminal columns text takes: East Asian wide and fullwidth characters and emoji take 2,
/// combining marks and other zero-width characters 0, everything else 1.
///
/// Width is measured per grapheme cluster (`Character`), as terminals draw them: an emoji sequence
/// joined with ZWJ, a flag or a keycap counts 2, a letter with combining accents counts 1. The wide
/// ranges are the main East Asian blocks (CJK, Hiragana, Katakana, Hangul, fullwidth forms, …), not
/// the full Unicode table; control characters count 0, so escape them before measuring.
public enum DisplayWidth {
    /// The number of terminal columns `text` takes.
    public static func of(_ text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// The number of terminal columns one grapheme cluster takes.
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if character.utf8.count == 1 { return first.value >= 0x20 && first.value < 0x7F ? 1 : 0 }  // ASCII
        let properties = first.properties
        let textStyle = scalars.contains("\u{FE0E}")
        if !textStyle, properties.isEmojiPresentation || (properties.isEmoji && scalars.contains("\u{FE0F}")) {
            return 2
        }
        var total = 0
        for scalar in scalars { total += of(scalar) }
        return min(total, 2)
    }

    /// The number of terminal columns one scalar takes on its own.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x7F { return v >= 0x20 ? 1 : 0 }
        if v < 0xA0 { return 0 }  // DEL and C1 controls
        if isWide(v) { return 2 }
        let properties = scalar.properties
        if properties.isEmojiPresentation { return 2 }  // emoji drawn as emoji even without U+FE0F
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(v) { return 0 }  // Hangul medial vowels and final consonants
        return 1
    }

    /// East Asian Wide and Fullwidth blocks (the ones people meet; not the full table).
    private static func isWide(_ v: UInt32) -> Bool {
        guard v >= 0x1100 else { return false }
        switch v {
        case 0x1100...0x115F,  // Hangul initial consonants
            0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
            0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility jamo, CJK compatibility
            0x3400...0x4DBF,  // CJK extension A
            0x4E00...0x9FFF,  // CJK unified ideographs
            0xA000...0xA4CF,  // Yi
            0xA960...0xA97F,  // Hangul jamo extended A
            0xAC00...0xD7A3,  // Hangul syllables
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFE10...0xFE19,  // vertical forms
            0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
            0xFF00...0xFF60,  // fullwidth forms
            0xFFE0...0xFFE6,  // fullwidth signs
            0x16FE0...0x16FE4, 0x17000...0x18CFF,  // Tangut, Khitan
            0x1AFF0...0x1B2FF,  // Kana supplement and extensions, Nushu
            0x1F200...0x1F2FF,  // enclosed ideographic supplement
            0x20000...0x3FFFD:  // CJK extensions B and later, compatibility supplement
            return true
        default:
            return false
        }
    }
}
