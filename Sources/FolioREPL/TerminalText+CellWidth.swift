/// How many terminal cells text takes, for aligning columns: CJK ideographs,
/// kana, Hangul, fullwidth forms and emoji take two; combining marks, zero-width
/// joiners and other invisible format characters none; the rest one.
///
/// Counted per grapheme cluster (Swift's `Character`), as current terminals
/// draw them: a cluster is as wide as its first scalar, so `e` + U+0301 is one
/// cell and a ZWJ family or a flag is two; a text-style symbol followed by
/// the emoji presentation selector U+FE0F (`❤️`, `1️⃣`) is drawn as an emoji, two.
extension TerminalText {
    /// The cells `text` takes on a terminal (control characters are expected
    /// to be escaped first; they count as none).
    public static func cellWidth(_ text: String) -> Int {
        // ASCII fast path: one cell per printable byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + cellWidth($1) }
    }

    /// The cells one grapheme cluster takes: 0, 1 or 2.
    public static func cellWidth(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        let width = cellWidth(first)
        if width == 1, first.properties.isEmoji, scalars.contains("\u{FE0F}") { return 2 }
        if width == 0 {
            // A cluster that starts with a mark (a mark at the start of a string) takes what its other scalars take.
            return scalars.dropFirst().map(cellWidth).max() ?? 0
        }
        return width
    }

    /// The cells one scalar takes on its own: 2 for East Asian Wide and
    /// Fullwidth characters and emoji presentation, 0 for nonspacing and
    /// enclosing marks, format characters (ZWJ, ZWNJ, BOM…) and Hangul
    /// medial and final jamo, 1 otherwise.
    public static func cellWidth(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value < 0x20 ? 0 : 1 }
        if needsEscape(scalar) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return 0
        case .format: return value == 0x00AD ? 1 : 0  // a soft hyphen is drawn
        default: break
        }
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
        if scalar.properties.isEmojiPresentation || isWide(value) { return 2 }
        return 1
    }

    /// Whether a code point is East_Asian_Width W or F (Unicode 15.1's
    /// EastAsianWidth.txt, emoji left to `isEmojiPresentation`).
    static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0, high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound { high = middle - 1 } else if value > range.upperBound { low = middle + 1 } else { return true }
        }
        return false
    }

    /// East Asian Wide and Fullwidth ranges outside the emoji blocks, sorted.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo initial consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x2E99, 0x2E9B...0x2EF3, 0x2F00...0x2FD5, 0x2FF0...0x2FFF,  // CJK radicals, Kangxi, description
        0x3000...0x303E,  // CJK symbols and punctuation, ideographic space
        0x3041...0x3096, 0x3099...0x30FF,  // Hiragana, Katakana
        0x3105...0x312F, 0x3131...0x318E, 0x3190...0x31E3, 0x31EF...0x321E,  // Bopomofo, Hangul compatibility jamo, Kanbun, strokes
        0x3220...0x3247, 0x3250...0x4DBF,  // enclosed CJK, compatibility, CJK extension A
        0x4DC0...0x4DFF,  // Yijing hexagrams (wide since Unicode 16)
        0x4E00...0xA48C, 0xA490...0xA4C6,  // CJK unified ideographs, Yi
        0xA960...0xA97C,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B,  // CJK compatibility forms, small forms
        0xFF01...0xFF60, 0xFFE0...0xFFE6,  // fullwidth forms
        0x16FE0...0x16FE4, 0x16FF0...0x16FF1,  // ideographic symbols
        0x17000...0x187F7, 0x18800...0x18CD5, 0x18D00...0x18D08,  // Tangut, Khitan
        0x1AFF0...0x1AFFE, 0x1B000...0x1B122, 0x1B132...0x1B132, 0x1B150...0x1B152, 0x1B155...0x1B155,
        0x1B164...0x1B167, 0x1B170...0x1B2FB,  // Kana supplements, Nushu
        0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251, 0x1F260...0x1F265,  // enclosed ideographs
        0x20000...0x2FFFD, 0x30000...0x3FFFD,  // CJK extensions B and later
    ]

    /// `text` cut to at most `limit` cells, ending in "…" when it was cut;
    /// a wide character that would straddle the limit is left out whole.
    public static func truncated(_ text: String, toCells limit: Int) -> String {
        guard cellWidth(text) > limit else { return text }
        guard limit > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let width = cellWidth(character)
            if used + width > limit - 1 { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }

    /// `text` followed by spaces up to `cells` cells (or preceded, right-aligned).
    static func padded(_ text: String, toCells cells: Int, rightAligned: Bool = false) -> String {
        let pad = String(repeating: " ", count: max(0, cells - cellWidth(text)))
        return rightAligned ? pad + text : text + pad
    }
}
