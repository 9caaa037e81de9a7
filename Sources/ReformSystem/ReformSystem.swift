// The one file of Reform's own targets that imports the C library: every other file imports
// ReformSystem, which re-exports it, so that a port to another C library touches this module alone
// (scripts/check-platform-imports.sh keeps it so). The other files here are the shims for what
// differs between the C libraries and is used: `stat`'s modification time, installing a signal
// handler, sockets, threads and the environment. Linux with glibc is the one platform built and
// tested; the Musl and Darwin branches are written, not built.
#if canImport(Glibc)
@_exported public import Glibc
#elseif canImport(Musl)
@_exported public import Musl
#elseif canImport(Darwin)
@_exported public import Darwin
#else
#error("ReformSystem supports glibc, musl and Darwin")
#endif
