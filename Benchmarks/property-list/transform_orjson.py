#!/usr/bin/env python3
"""The Python baseline: the property-list transform with orjson, streaming line by line.

    python3 transform_orjson.py OUT ZUFANG XINFANG ERSHOUFANG

Reads each NDJSON file line by line, orjson.loads each record, builds the output dict with the
constant keys, orjson.dumps it and writes it, zufang first, then xinfang, then ershoufang. Blank
lines are skipped, as jq and reform skip them. Memory stays flat (one line at a time, buffered
writes). orjson's bytes equal `jq -c`'s for the data generate.py makes (it avoids U+007F, which jq
escapes and orjson does not).
"""
import sys

import orjson

FIELDS = (
    ("id", "name", "title", "imageUrl"),
    ("xinfang_id", "xinfang_name", "xinfang_title", "xinfang_imageUrl"),
    ("esf_id", "esf_name", "esf_title", "esf_imageUrl"),
)


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: transform_orjson.py OUT ZUFANG XINFANG ERSHOUFANG")
    loads, dumps = orjson.loads, orjson.dumps
    with open(sys.argv[1], "wb", buffering=1 << 20) as out:
        write = out.write
        for path, (kid, kname, ktitle, kimage) in zip(sys.argv[2:], FIELDS):
            with open(path, "rb", buffering=1 << 20) as f:
                for line in f:
                    if not line.strip():
                        continue
                    r = loads(line)
                    write(dumps({
                        "kPropertyListDataKeyID": r.get(kid),
                        "kPropertyListDataKeyName": r.get(kname),
                        "kPropertyListDataKeyTitle": r.get(ktitle),
                        "kPropertyListDataKeyImage": r.get(kimage),
                    }))
                    write(b"\n")


if __name__ == "__main__":
    main()
