#!/usr/bin/env python3
"""Writes N event records as NDJSON, deterministically: python3 generate.py N OUT [SEED]

Each record has the fields the row shape renders (id, date, title, location.city, amount) and
some it does not (tags, note, flags), so both tools parse whole records. Titles mix ASCII and
Chinese and some need CSV quoting (commas, quotes, line breaks).
"""
import json
import random
import sys

n = int(sys.argv[1])
out = sys.argv[2]
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 5)
words = ["送礼物", "订年夜饭", "team sync", "买车票", "dentist", "情人节", "review, final", 'say "hi"', "line\nbreak", "春节"]
cities = ["上海", "北京", "Hangzhou", "深圳", "Chengdu, Sichuan"]
with open(out, "w", encoding="utf-8") as f:
    for i in range(1, n + 1):
        record = {
            "id": i,
            "date": "2026-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28)),
            "title": " ".join(rng.choice(words) for _ in range(rng.randint(1, 4))),
            "location": {"city": rng.choice(cities), "lat": 31.2, "lng": 121.5},
            "amount": rng.randint(-5000, 500000),
            "tags": [rng.choice(words) for _ in range(rng.randint(0, 3))],
            "note": None if i % 3 else "note %d" % i,
            "done": i % 2 == 0,
        }
        f.write(json.dumps(record, ensure_ascii=(i % 7 == 0), separators=(",", ":")) + "\n")
