// The compiler's prefetch hint, imported into Swift as CPrefetch (Swift has no spelling of its
// own for it): a sort that writes its held lines in sorted order reads them from all over its
// memory, one cache miss a line; asking for the lines a few places ahead overlaps those misses
// (Sources/ReformEngine/Sorting/LineSort.swift).
#ifndef REFORM_CPREFETCH_SHIM_H
#define REFORM_CPREFETCH_SHIM_H

/// Asks the processor to start loading the cache line at `address` for reading; no effect on
/// what the program computes, and no fault for any address.
static inline void reform_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
