extension sigaction {
    /// An action that calls `handler` with the signal's number, no flags and an empty mask (the
    /// handler sits in a union whose member names differ between C libraries).
    public init(handler: @convention(c) (Int32) -> Void) {
        self.init()
        #if canImport(Glibc)
        __sigaction_handler.sa_handler = handler
        #elseif canImport(Musl)
        __sa_handler.sa_handler = handler
        #elseif canImport(Darwin)
        __sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&sa_mask)
    }
}
