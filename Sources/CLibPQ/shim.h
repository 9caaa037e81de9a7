// The declarations of the system libpq (Debian libpq-dev), imported into Swift as CLibPQ:
// `postgres:` outputs load records into tables with the COPY protocol in one transaction, and
// `postgres:URL#table` inputs read them back. Nothing links libpq: the engine loads libpq.so.5
// when a PostgreSQL table is first used (Sources/ReformEngine/Tables/LibPQ.swift); the test
// support, which talks to its test server directly, links it itself.
#include <postgresql/libpq-fe.h>
