/// How much memory a sort holds before it spills to files.
@usableFromInline
enum SortMemory {
    /// The default budget: 64 MiB (``RunOptions/defaultSortMemory``, `reform run --sort-memory`).
    @usableFromInline
    static let defaultBytes = 64 << 20
}
