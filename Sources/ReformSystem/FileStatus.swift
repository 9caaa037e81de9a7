extension stat {
    /// When the file was last modified (`st_mtim`; `st_mtimespec` on Darwin).
    public var modificationTime: timespec {
        #if canImport(Darwin)
        st_mtimespec
        #else
        st_mtim
        #endif
    }
}
