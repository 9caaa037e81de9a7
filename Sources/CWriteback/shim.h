// sync_file_range(2), imported into Swift as CWriteback: output files start their write-back to
// disk while they are written, so the fsync before their rename waits for the last few MiB only
// (Sources/ReformEngine/Output/OutputFile.swift). glibc declares it only under _GNU_SOURCE, which
// the Glibc module is not built with. Linux alone has it: elsewhere the write-back starts at the
// fsync, and this does nothing.
#ifndef REFORM_CWRITEBACK_SHIM_H
#define REFORM_CWRITEBACK_SHIM_H

#if defined(__linux__)
extern int sync_file_range(int fd, long offset, long count, unsigned int flags);
#endif

/// Starts writing the dirty pages of file `fd` to disk without waiting for them (the whole file;
/// pages already being written are left as they are). Returns -1 with errno set on failure.
static inline int reform_start_writeback(int fd) {
#if defined(__linux__)
    return sync_file_range(fd, 0, 0, 2 /* SYNC_FILE_RANGE_WRITE */);
#else
    (void)fd;
    return 0;
#endif
}

#endif
