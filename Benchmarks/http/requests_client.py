#!/usr/bin/env python3
"""The Python side of the HTTP benchmark: one requests.Session fetches /bench pages sequentially,
following "next" until it is null, and writes every item as NDJSON.

    python3 requests_client.py PORT PAGES PER_PAGE OUT.ndjson
"""
import json
import os
import sys

import requests


def main():
    port, pages, per_page, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    scheme = os.environ.get("REFORM_BENCH_SCHEME", "http")  # https: REQUESTS_CA_BUNDLE names the CA
    base = f"{scheme}://127.0.0.1:{port}/bench"
    session = requests.Session()
    page = 1
    with open(out, "w", encoding="utf-8") as f:
        while page is not None:
            r = session.get(f"{base}?page={page}&per_page={per_page}&pages={pages}")
            r.raise_for_status()
            body = r.json()
            for item in body["items"]:
                f.write(json.dumps(item, ensure_ascii=False) + "\n")
            page = body["next"]
    session.close()


if __name__ == "__main__":
    main()
