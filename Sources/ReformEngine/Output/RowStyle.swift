/// How a record's row should stand out among the others, for formats that can show it.
///
/// Only the table format shows styles, and only when colour is on; every other format writes the
/// record the same way whatever its style.
public enum RowStyle: String, Sendable, Hashable, CaseIterable {
    /// An ordinary row.
    case plain
    /// A row to notice first (for example event rows among festival rows): bold yellow.
    case highlight
    /// A row of lesser interest: faint.
    case dim
    /// An emphasised row: bold.
    case bold
}
