extension OutputFormat {
    /// A writer for this format into `output`.
    ///
    /// - Parameters:
    ///   - columns: The columns to write, in order; `nil` or empty derives them from the records
    ///     (JSON formats then write records whole).
    ///   - output: Where the bytes go; commit it after the writer's `finish()`.
    ///   - colour: Whether the table format writes ANSI colour; decide it with ``ColourMode``.
    ///     Other formats never colour.
    ///   - maxWidth: The terminal width the table format fits its rows into; `nil` for no limit.
    ///     Other formats ignore it.
    ///   - title: The HTML page's title; other formats ignore it.
    ///   - expectedKeys: The keys records usually have, in order, when known (a keyed chain's); the
    ///     NDJSON writer escapes them once instead of per record. Other formats ignore it.
    ///   - byteOrderMark: Whether CSV starts with the UTF-8 byte-order mark (before the header);
    ///     other formats ignore it.
    ///   - safety: What CSV escapes in cells (formulas, control characters) and Markdown
    ///     (control characters); other formats ignore it (the table format always escapes
    ///     control characters).
    public func makeWriter(
        columns: [OutputColumn]? = nil,
        output: OutputFile,
        colour: Bool = false,
        maxWidth: Int? = nil,
        title: String? = nil,
        expectedKeys: [String]? = nil,
        byteOrderMark: Bool = false,
        safety: CellSafety = CellSafety()
    ) -> any RecordWriter {
        switch self {
        case .ndjson: NDJSONWriter(output: output, columns: columns, expectedKeys: expectedKeys)
        case .json: JSONArrayWriter(output: output, columns: columns)
        case .table: TableWriter(output: output, columns: columns, colour: colour, maxWidth: maxWidth)
        case .csv: CSVWriter(output: output, columns: columns, byteOrderMark: byteOrderMark, safety: safety)
        case .markdown: MarkdownWriter(output: output, columns: columns, escapeControls: safety.escapeControls)
        case .html: HTMLWriter(output: output, columns: columns, title: title ?? "reform")
        }
    }
}
