/// SQLite database files are named by plain paths only. The system `libsqlite3` opens a name
/// starting with `file:` as a URI (`file:/elsewhere/app.db`, `file:x.db?mode=memory`) and
/// `:memory:` as a database that vanishes with the run: the first escapes output confinement,
/// the second loses the rows (reliability audit H4, L14).
enum SQLitePath {
    /// Why `path` cannot name a database file, for a message (`'sqlite' of run 'default' is …`),
    /// or nil when it is a plain path.
    static func problem(_ path: String) -> String? {
        if path.lowercased().hasPrefix("file:") {
            return "an SQLite URI filename (file:…), which SQLite would open as a URI rather than as a path"
        }
        if path == ":memory:" { return "SQLite's in-memory database, whose rows would be gone when the run ends" }
        return nil
    }

    /// `path` as SQLite must be given it to open the file of that name whatever it is: relative
    /// paths start with `./`, so that neither `file:` nor `:memory:` is taken as a special name.
    static func plain(_ path: String) -> String {
        path.hasPrefix("/") ? path : "./" + path
    }
}
