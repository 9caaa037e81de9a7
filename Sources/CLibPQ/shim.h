// The system libpq (Debian libpq-dev, pkg-config libpq), imported into Swift as CLibPQ:
// `postgres:` outputs load records into tables with the COPY protocol in one transaction, and
// `postgres:URL#table` inputs read them back.
#include <libpq-fe.h>
