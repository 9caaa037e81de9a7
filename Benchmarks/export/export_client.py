#!/usr/bin/env python3
"""The export benchmark's Python peer: what one writes with `requests` for the same export: create
the job, poll it, then stream each gzip CSV result file (requests' raw stream through gzip and
csv.DictReader, never the whole file in memory) and write each row as a line of JSON.

    python3 export_client.py BASE_URL ROWS PARTS OUTPUT [json|orjson]
"""
import csv
import gzip
import io
import json
import sys
import time

import requests


def main():
    base, rows, parts, output = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    encoder = sys.argv[5] if len(sys.argv) > 5 else "json"
    if encoder == "orjson":
        import orjson

        def line(row):
            return orjson.dumps(row) + b"\n"
    else:
        def line(row):
            return (json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    session = requests.Session()
    session.headers["Authorization"] = "Bearer job-token"
    job = session.post(f"{base}/jobs", json={"rows": rows, "parts": parts, "polls": 0, "format": "csv"}).json()
    while True:
        status = session.get(f"{base}/jobs/{job['id']}").json()
        if status["status"] == "completed":
            break
        time.sleep(0.01)
    with open(output, "wb") as out:
        for file in status["files"]:
            url = file["url"] if "://" in file["url"] else base + file["url"]
            with session.get(url, stream=True) as response:
                response.raise_for_status()
                text = io.TextIOWrapper(gzip.GzipFile(fileobj=response.raw), encoding="utf-8", newline="")
                for row in csv.DictReader(text):
                    out.write(line(row))


if __name__ == "__main__":
    main()
