// The system zlib (Debian zlib1g-dev, pkg-config zlib), imported into Swift as CZlib: gzip inputs
// (`.ndjson.gz`) are read through its streaming gzread, in constant memory.
#include <zlib.h>
