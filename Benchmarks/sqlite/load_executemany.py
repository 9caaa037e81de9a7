#!/usr/bin/env python3
"""The property-list records into SQLite with Python's sqlite3, as `reform run
Pipelines/property-list.yaml --run sqlite` loads them:

    python3 load_executemany.py DB ZUFANG.ndjson XINFANG.ndjson ERSHOUFANG.ndjson [json|orjson]

Reads each manager's NDJSON with the standard json module (or orjson), takes its four fields
under that manager's names, and inserts them with one executemany in one transaction into the
table reform makes (same columns, same types, the same unique index on the id), replacing its
rows on a conflict as reform's `mode: upsert` does.
"""
import sqlite3
import sys

db, zufang, xinfang, ershoufang = sys.argv[1:5]
if len(sys.argv) > 5 and sys.argv[5] == "orjson":
    import orjson as json
else:
    import json

COLUMNS = ["kPropertyListDataKeyID", "kPropertyListDataKeyName", "kPropertyListDataKeyTitle", "kPropertyListDataKeyImage"]
CREATE = (
    'CREATE TABLE IF NOT EXISTS "listings" ("kPropertyListDataKeyID" INTEGER, "kPropertyListDataKeyName" TEXT, '
    '"kPropertyListDataKeyTitle" TEXT, "kPropertyListDataKeyImage" TEXT, UNIQUE ("kPropertyListDataKeyID"))'
)
INSERT = (
    'INSERT INTO "listings" (' + ", ".join('"%s"' % c for c in COLUMNS) + ") VALUES (?, ?, ?, ?) "
    'ON CONFLICT ("kPropertyListDataKeyID") DO UPDATE SET '
    + ", ".join('"%s" = excluded."%s"' % (c, c) for c in COLUMNS[1:])
)
SOURCES = [
    (zufang, ("id", "name", "title", "imageUrl")),
    (xinfang, ("xinfang_id", "xinfang_name", "xinfang_title", "xinfang_imageUrl")),
    (ershoufang, ("esf_id", "esf_name", "esf_title", "esf_imageUrl")),
]


def rows():
    loads = json.loads
    for path, (i, n, t, m) in SOURCES:
        with open(path, "rb") as f:
            for line in f:
                r = loads(line)
                yield (r[i], r[n], r[t], r[m])


con = sqlite3.connect(db, isolation_level=None)
con.execute("BEGIN IMMEDIATE")
con.execute(CREATE)
con.executemany(INSERT, rows())
con.execute("COMMIT")
con.close()
