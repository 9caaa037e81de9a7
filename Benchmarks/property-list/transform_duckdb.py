#!/usr/bin/env python3
"""The DuckDB baseline: the property-list transform as one SQL statement over the three inputs.

    python3 transform_duckdb.py THREADS OUT ZUFANG XINFANG ERSHOUFANG

`COPY (SELECT … FROM read_ndjson(…) UNION ALL …) TO OUT (FORMAT JSON)` with `SET threads=THREADS`:
one record per line with the constant keys, zufang first, then xinfang, then ershoufang (DuckDB
keeps insertion order by default). Its bytes differ from jq's (escapes), so run.sh compares the
records as parsed JSON.
"""
import sys

import duckdb

FIELDS = ("", "xinfang_", "esf_")


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: transform_duckdb.py THREADS OUT ZUFANG XINFANG ERSHOUFANG")
    threads, out, paths = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    con = duckdb.connect()
    con.execute("SET threads = %d" % threads)
    selects = [
        "SELECT %sid AS kPropertyListDataKeyID, %sname AS kPropertyListDataKeyName, %stitle AS kPropertyListDataKeyTitle, "
        "%simageUrl AS kPropertyListDataKeyImage FROM read_ndjson('%s', format = 'newline_delimited')"
        % (prefix, prefix, prefix, prefix, path.replace("'", "''"))
        for prefix, path in zip(FIELDS, paths)
    ]
    con.execute("COPY (%s) TO '%s' (FORMAT JSON)" % (" UNION ALL ".join(selects), out.replace("'", "''")))


if __name__ == "__main__":
    main()
