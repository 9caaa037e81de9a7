/// How a record's row stands out among the others, for formats that can show it: an emphasis, a
/// colour, or both (`[bold, red]`).
///
/// The table format shows styles as ANSI escape codes when colour is on, HTML as CSS classes of the
/// row, Markdown shows ``Emphasis/highlight`` and ``Emphasis/bold`` as bold cells and
/// ``Emphasis/dim`` as italic ones; CSV and the JSON formats write every row the same way.
public struct RowStyle: Sendable, Hashable {
    /// How strongly a row is drawn.
    public enum Emphasis: String, Sendable, CaseIterable {
        /// A row to notice first (event rows among festival rows): bold, yellow unless coloured.
        case highlight
        /// A row of lesser interest: faint.
        case dim
        /// An emphasised row: bold.
        case bold
    }

    /// The eight ANSI terminal colours that every terminal draws.
    public enum Colour: String, Sendable, CaseIterable {
        /// ANSI 30.
        case black
        /// ANSI 31.
        case red
        /// ANSI 32.
        case green
        /// ANSI 33.
        case yellow
        /// ANSI 34.
        case blue
        /// ANSI 35.
        case magenta
        /// ANSI 36.
        case cyan
        /// ANSI 37.
        case white

        /// The ANSI foreground code, 30–37.
        var ansiCode: Int { 30 + (Colour.allCases.firstIndex(of: self) ?? 0) }
    }

    /// The emphasis, if any.
    public var emphasis: Emphasis?
    /// The text colour, if any.
    public var colour: Colour?

    /// A style with this emphasis and colour; both `nil` is ``plain``.
    public init(emphasis: Emphasis? = nil, colour: Colour? = nil) {
        self.emphasis = emphasis
        self.colour = colour
    }

    /// An ordinary row.
    public static let plain = RowStyle()
    /// Bold yellow on a terminal.
    public static let highlight = RowStyle(emphasis: .highlight)
    /// Faint.
    public static let dim = RowStyle(emphasis: .dim)
    /// Bold.
    public static let bold = RowStyle(emphasis: .bold)

    /// Whether the row is drawn like any other.
    public var isPlain: Bool { emphasis == nil && colour == nil }

    /// Every word a style can be written with: the emphases, then the colours.
    public static var words: [String] { Emphasis.allCases.map(\.rawValue) + Colour.allCases.map(\.rawValue) }

    /// The style written as words (`highlight`, `red`, `[dim, blue]`), or `nil` when a word is
    /// neither an emphasis nor a colour, or two words set the same thing.
    public init?(words: [String]) {
        self.init()
        for word in words {
            if let emphasis = Emphasis(rawValue: word), self.emphasis == nil {
                self.emphasis = emphasis
            } else if let colour = Colour(rawValue: word), self.colour == nil {
                self.colour = colour
            } else {
                return nil
            }
        }
    }

    /// The SGR parameters that draw this style on a terminal (`1;33`), or `nil` for a plain row.
    var ansiParameters: String? {
        var codes: [Int] = []
        switch emphasis {
        case .highlight: codes.append(1)
        case .bold: codes.append(1)
        case .dim: codes.append(2)
        case nil: break
        }
        if let colour {
            codes.append(colour.ansiCode)
        } else if emphasis == .highlight {
            codes.append(Colour.yellow.ansiCode)
        }
        return codes.isEmpty ? nil : codes.map(String.init).joined(separator: ";")
    }

    /// The CSS class names of a row in this style (`highlight red`), empty for a plain row.
    var cssClasses: [String] {
        [emphasis?.rawValue, colour?.rawValue].compactMap { $0 }
    }
}
