"""Writes N records shaped like a rental listing API's, one per line (NDJSON)."""
import random, sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
path = sys.argv[2] if len(sys.argv) > 2 else "records.ndjson"
random.seed(7)
with open(path, "w") as f:
    for i in range(n):
        k = random.randint(100000, 999999)
        f.write('{"id":%d,"name":"Some name %d","title":"Bright two-room flat near the metro %d","imageUrl":"https://img.example.com/zufang/%d.jpg"}\n' % (k, i, i, k))
