#!/usr/bin/env python3
"""Counts the items a tool fetched, and sums their ids, so the tools can be compared.

    python3 count_items.py pages FILE     # one JSON page per line ({"items": [...]}), as curl -w '\\n' writes
    python3 count_items.py ndjson FILE    # one item per line (Python requests, Reform)

Prints `COUNT IDSUM` (IDSUM is - when some item has no integer "id").
"""
import json
import sys


def main():
    kind, path = sys.argv[1], sys.argv[2]
    count, idsum = 0, 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            value = json.loads(line)
            items = value["items"] if kind == "pages" else [value]
            for item in items:
                count += 1
                if idsum is not None and isinstance(item, dict) and isinstance(item.get("id"), int):
                    idsum += item["id"]
                else:
                    idsum = None
    print(count, "-" if idsum is None else idsum)


if __name__ == "__main__":
    main()
