/// `reformers:`, `rows:` and `runs:`: what becomes of landed records, and where they go.
extension PipelineSchema {
    /// A reformer: field mappings, built-in steps, or a plugin.
    package static let reformer = SchemaObject(
        "reformer", "A reformer: field mappings into constant keys (from/map), built-in steps, or a plugin.",
        keys: [
            SchemaKey(
                "keys", .oneOf([.named(.string()), .list(.string())]),
                "The keys it emits: short names to constants ({ id: kListKeyID }), or a list of names."),
            SchemaKey("from", .named(.named(rule)), "Per manager: each key's rule (a path, 'path?' when optional, or a rule)."),
            SchemaKey("map", .named(rule), "One mapping for every manager: each key's rule."),
            SchemaKey("steps", .list(step), "Built-in steps applied in order."),
            SchemaKey("plugin", .string(), "A reformer plugin's name (see 'reform plugins')."),
            SchemaKey("options", .named(.any), "The plugin's options (see 'reform plugins' for each plugin's)."),
            SchemaKey("description", .string(), "What the reformer does."),
        ])

    /// A key's rule in a mapping: a path, or a mapping.
    static let rule = SchemaType.oneOf([.string(), .object(ruleObject)])

    /// A key's rule written as a mapping.
    package static let ruleObject = SchemaObject(
        "rule", "Where a key's value comes from (exactly one of path, template, value) and what is done to it.",
        keys: [
            SchemaKey("path", .string(), "The field read, like user.name; 'tags[].name' reads each element of an array."),
            SchemaKey("template", .string(), "Text with {field} references."),
            SchemaKey("value", .any, "A constant."),
            SchemaKey("optional", .bool, "Whether a missing field is allowed (the key is then null)."),
            SchemaKey("default", .any, "The value when the field is missing; makes the rule optional."),
            SchemaKey("convert", .choice(of: Conversion.self), "A conversion of the value."),
            SchemaKey("array", .choice(of: ArrayOperation.Reduction.self), "What becomes of an array read with '[]' (default list)."),
            SchemaKey("separator", .string(), "The separator for array: join (default ', ')."),
        ])

    /// A step: `- flatten`, or a mapping naming one step and its argument.
    static let step = SchemaType.oneOf([
        .choice(BuiltInSteps.all.filter { $0.mayBeBare }.map { $0.name }), .object(stepEntry),
    ])

    /// A step written as a mapping: exactly one step.
    package static let stepEntry = SchemaObject(
        "step", "One built-in step and its argument.",
        keys: BuiltInSteps.all.map { SchemaKey($0.name, $0.argument, $0.summary) },
        exactlyOne: true)

    /// `sort: { by: …, order: … }` of a step or a row shape.
    package static let sortOptions = SchemaObject(
        "sort", "What to sort by, and in which order.",
        keys: [
            SchemaKey("by", .string(), "The key (or column) sorted by."),
            SchemaKey("order", .choice(["asc", "desc"]), "asc (default) or desc."),
        ],
        required: ["by"])

    /// A row shape.
    package static let rowShape = SchemaObject(
        "rowShape", "A row shape: its columns, sorting, styles, and each manager's rules for filling it.",
        keys: [
            SchemaKey(
                "columns", .oneOf([.string(), .list(.string()), .named(.string())]),
                "The columns: key names, or headings mapped to keys."),
            SchemaKey("sort", .oneOf([.string(), .object(sortOptions)]), "The column rows are sorted by."),
            SchemaKey("style", .named(rowStyle), "A style per manager, like { events: highlight }."),
            SchemaKey("style_when", .named(rowStyle), "A style per condition over the row, like { \"price > 100\": red }."),
            SchemaKey("format", .named(.object(valueFormat)), "A value format per column: { date: PATTERN } or { number: PATTERN }."),
            SchemaKey("from", .named(.object(rowsManager)), "Per manager: where columns come from, its style and formats."),
            SchemaKey("description", .string(), "What the rows show."),
        ],
        required: ["columns"])

    /// A row style: an emphasis, a colour, or one of each.
    static let rowStyle = SchemaType.oneOf([.choice(RowStyle.words), .list(.choice(RowStyle.words))])

    /// A column's value format.
    package static let valueFormat = SchemaObject(
        "valueFormat", "How a column's values are written; exactly one of date or number.",
        keys: [
            SchemaKey("date", .string(), "A date pattern like YYYY-MM-DD or M月D日."),
            SchemaKey("number", .string(), "A number pattern like #,##0.00."),
        ],
        exactlyOne: true)

    /// One manager's entry under `from:` of a row shape.
    package static let rowsManager = SchemaObject(
        "One manager's rules for filling the row shape.",
        keys: [
            SchemaKey("columns", .named(.string()), "Per column: the path its value comes from."),
            SchemaKey("style", rowStyle, "The style of this manager's rows."),
            SchemaKey("format", .named(.object(valueFormat)), "Value formats for this manager's rows, per column."),
        ])

    /// A run.
    package static let run = SchemaObject(
        "run", "A run: which managers, with which parameters, through which reformers, into which outputs.",
        keys: [
            SchemaKey("managers", .stringOrList, "The managers landed (default all)."),
            SchemaKey("params", .named(.any), "Parameter values for the run's managers."),
            SchemaKey("reform", .stringOrList, "The chain of reformers applied, in order (with one output)."),
            SchemaKey("rows", .string(), "The row shape records are rendered into (with one output)."),
            SchemaKey("output", .object(outputSettings), "Where the one output goes: format, path, or a table."),
            SchemaKey("outputs", .list(.object(output)), "Several outputs, each with its own chain."),
            SchemaKey("description", .string(), "What the run does."),
        ])

    /// The keys of an output that loads a table.
    package static let tableKeys = [
        SchemaKey("sqlite", .string(), "A SQLite database file to load the records into (relative to the working folder)."),
        SchemaKey(
            "postgres", .string(),
            "A PostgreSQL server's URL (postgres://user:${PGPASSWORD}@host/db) to load the records into; secrets are redacted."),
        SchemaKey("table", .string(), "The table loaded."),
        SchemaKey("mode", .choice(of: TablePlan.Mode.self), "How the table is loaded (default replace)."),
        SchemaKey("key", .stringOrList, "The keys rows are matched by (mode: upsert)."),
        SchemaKey("types", .named(.choice(of: ColumnType.self)), "Column types, where the chain does not say."),
        SchemaKey(
            "schema", .choice(of: TablePlan.Contract.self),
            "What a run does when the table there differs from the pipeline's columns (default freeze: stop and say how)."),
        SchemaKey(
            "widen", .bool,
            "With schema: evolve, change a column's type to a wider one the values need (integer → bigint → double → text)."),
        SchemaKey(
            "child_tables", .oneOf([.bool, .list(.string())]),
            "List-valued keys whose elements go to child tables (TABLE__KEY, linked by 'key'); true: every key typed json."),
    ]

    static let fileKeys = [
        SchemaKey("rows", .string(), "The row shape records are rendered into."),
        SchemaKey("format", .choice(of: OutputFormat.self), "The output format (default from the path's extension, else table)."),
        SchemaKey("path", .string(), "The file written, relative to the working folder (default standard output)."),
        SchemaKey("bom", .bool, "Write the UTF-8 byte-order mark spreadsheet programs need (csv)."),
        SchemaKey(
            "escape_formulas", .bool,
            "Write a ' before text cells starting with = + - @ tab or CR, quoted (csv; default: on for a file, off for standard output)."),
    ]

    /// `output:` of a run (the chain is the run's `reform`).
    package static let outputSettings = SchemaObject(
        "outputSettings", "Where an output goes: a file (format, path) or a table (sqlite or postgres, table).", keys: fileKeys + tableKeys)

    /// An entry of `outputs:`: its own chain, and where it goes.
    package static let output = SchemaObject(
        "output", "One output: its chain of reformers, and a file or a table.",
        keys: [SchemaKey("reform", .stringOrList, "The chain of reformers applied, in order.")] + fileKeys + tableKeys)
}
