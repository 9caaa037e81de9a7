#!/usr/bin/env python3
"""Exits 1 unless two NDJSON files hold the same records, in the same order, as parsed JSON.

    python3 same_records.py EXPECTED ACTUAL
"""
import json
import sys

with open(sys.argv[1], "rb") as a, open(sys.argv[2], "rb") as b:
    for number, (x, y) in enumerate(zip(a, b), 1):
        if json.loads(x) != json.loads(y):
            sys.exit("record %d differs:\n  %s  %s" % (number, x.decode(), y.decode()))
    if a.read(1) or b.read(1):
        sys.exit("the files hold different numbers of records")
