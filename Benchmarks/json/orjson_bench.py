"""The Python baseline: orjson loads + dumps every line, best of ROUNDS."""
import sys, time, orjson
path = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
lines = open(path, "rb").read().splitlines()
size = sum(len(l) + 1 for l in lines) / 1e6
best_parse = best_both = float("inf")
for _ in range(rounds):
    t = time.perf_counter()
    for l in lines:
        orjson.loads(l)
    best_parse = min(best_parse, time.perf_counter() - t)
    t = time.perf_counter()
    out = [orjson.dumps(orjson.loads(l)) for l in lines]
    best_both = min(best_both, time.perf_counter() - t)
for label, s in (("parse only  ", best_parse), ("parse+write ", best_both)):
    print("orjson %s: %d ms, %d MB/s, %d records/s, %d ns/record" % (label, s * 1000, size / s, len(lines) / s, s / len(lines) * 1e9))
