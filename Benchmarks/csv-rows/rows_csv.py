#!/usr/bin/env python3
"""The same rows as Benchmarks/csv-rows/events.yaml, with Python's csv module:

    python3 rows_csv.py IN.ndjson OUT.csv [json|orjson]

Reads NDJSON with the standard json module (or orjson), writes RFC 4180 CSV with LF line ends
(csv.writer, QUOTE_MINIMAL), the header first: the bytes reform writes.
"""
import csv
import sys

src, dst = sys.argv[1], sys.argv[2]
if len(sys.argv) > 3 and sys.argv[3] == "orjson":
    import orjson as json
else:
    import json
with open(src, "rb") as f, open(dst, "w", encoding="utf-8", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "date", "title", "city", "amount"])
    loads = json.loads
    for line in f:
        if not line.strip():
            continue
        r = loads(line)
        writer.writerow([r["id"], r["date"], r["title"], r["location"]["city"], r["amount"]])
