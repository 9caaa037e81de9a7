// The system SQLite (Debian libsqlite3-dev, pkg-config sqlite3), imported into Swift as CSQLite:
// `sqlite:` outputs load records into tables with prepared statements in one transaction, and
// `sqlite:PATH#table` inputs read them back.
#include <sqlite3.h>
