/// What the CSV and Markdown writers do to cells for where they go: a spreadsheet must not run a
/// cell as a formula (reliability audit M9), a terminal must not obey an escape sequence from the
/// data (audit L8).
public struct CellSafety: Sendable, Equatable {
    /// Whether a CSV text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is
    /// written with a `'` before it and quoted (OWASP's advice for CSV injection): the spreadsheet
    /// then shows it as text. Numbers, booleans and JSON are never touched (`-5` stays `-5`).
    public var escapeFormulas: Bool
    /// Whether control characters in cells (an ESC sequence, a carriage return) are written as
    /// escapes (`\u001b`, `\r`), as the table format writes them; line feeds and tabs stay.
    public var escapeControls: Bool

    /// Cells as chosen; by default written as they are.
    public init(escapeFormulas: Bool = false, escapeControls: Bool = false) {
        self.escapeFormulas = escapeFormulas
        self.escapeControls = escapeControls
    }

    /// Whether text starting with `byte` is a formula to a spreadsheet.
    static func startsFormula(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "@")
            || byte == 0x09 || byte == 0x0D
    }
}
