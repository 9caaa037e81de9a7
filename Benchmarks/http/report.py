#!/usr/bin/env python3
"""Summarises the HTTP benchmark's results file (written by run.sh).

    python3 report.py RESULTS.tsv EXPECTED_REQUESTS

Each line: TOOL RUN WALL_SECONDS RSS_KB ITEMS IDSUM REQUESTS CONNECTIONS SERVER_CPU_SECONDS.
Prints per tool the min and median wall time, the ratio to curl (of the mins, and of the medians),
requests and connections per run, peak RSS, the server's CPU per run, and the target checks.
Exits 3 if a target is missed (run.sh passes that on only with STRICT=1).
"""
import statistics
import sys

ORDER = ["curl", "python", "reform", "reform-ahc"]
LABEL = {"curl": "curl (1 process, keep-alive)", "python": "python requests.Session", "reform": "reform --live",
         "reform-ahc": "reform --live, AsyncHTTPClient"}


def main():
    path, expected_requests = sys.argv[1], int(sys.argv[2])
    rows = {}
    for line in open(path):
        f = line.split()
        if len(f) != 9:
            continue
        rows.setdefault(f[0], []).append({
            "wall": float(f[2]), "rss": int(f[3]), "items": int(f[4]), "idsum": f[5],
            "requests": int(f[6]), "connections": int(f[7]), "server": float(f[8]),
        })
    tools = [t for t in ORDER if t in rows]
    if not tools:
        print("no results")
        return 1
    best = {t: min(r["wall"] for r in rows[t]) for t in tools}
    med = {t: statistics.median(r["wall"] for r in rows[t]) for t in tools}
    print(f"{'tool':<30} {'runs':>4} {'min ms':>8} {'median ms':>9} {'x curl':>7} {'x curl med':>10} "
          f"{'requests':>8} {'conns':>5} {'peak RSS':>9} {'srv cpu ms':>10}")
    for t in tools:
        rs = rows[t]
        ratio = f"{best[t] / best['curl']:.2f}" if "curl" in best else "-"
        ratio_med = f"{med[t] / med['curl']:.2f}" if "curl" in med else "-"
        reqs = sorted({r["requests"] for r in rs})
        conns = sorted({r["connections"] for r in rs})
        print(f"{LABEL.get(t, t):<30} {len(rs):>4} {best[t] * 1000:>8.1f} {med[t] * 1000:>9.1f} {ratio:>7} {ratio_med:>10} "
              f"{'/'.join(map(str, reqs)):>8} {'/'.join(map(str, conns)):>5} "
              f"{max(r['rss'] for r in rs) / 1024:>7.1f}MB {statistics.median(r['server'] for r in rs) * 1000:>10.0f}")

    problems = []
    counts = {t: sorted({(r["items"], r["idsum"]) for r in rows[t]}) for t in tools}
    item_counts = {t: sorted({c for c, _ in counts[t]}) for t in tools}
    if len({tuple(v) for v in item_counts.values()}) != 1 or any(len(v) != 1 for v in item_counts.values()):
        problems.append("the tools fetched different numbers of items: "
                        + ", ".join(f"{t} {'/'.join(map(str, v))}" for t, v in item_counts.items()))
    else:
        sums = {t: {s for _, s in counts[t]} for t in tools}
        if all("-" not in s for s in sums.values()) and len({frozenset(s) for s in sums.values()}) != 1:
            problems.append("the tools fetched the same number of items but different ids")
        print(f"\nitems per run: {item_counts[tools[0]][0]} for every tool")
    for t in tools:
        bad = sorted({r["requests"] for r in rows[t] if r["requests"] != expected_requests})
        if bad:
            problems.append(f"{t} made {'/'.join(map(str, bad))} requests in a run, expected {expected_requests}")
    if "curl" in rows and any(r["connections"] != 1 for r in rows["curl"]):
        problems.append("curl used more than one connection")
    for p in problems:
        print(f"PROBLEM: {p}")

    missed = False
    if "reform" in best and "curl" in best:
        r = best["reform"] / best["curl"]
        ok = r <= 1.2
        missed |= not ok
        print(f"target: reform within 1.2x of curl: {r:.2f}x -> {'met' if ok else 'MISSED'}")
    if "reform" in best and "python" in best:
        ok = best["reform"] < best["python"]
        missed |= not ok
        print(f"target: reform ahead of python requests: {best['reform'] * 1000:.1f} ms vs "
              f"{best['python'] * 1000:.1f} ms ({best['python'] / best['reform']:.2f}x) -> {'met' if ok else 'MISSED'}")
    if "reform" not in best:
        print("target: not checked (reform was skipped)")
    if problems:
        return 2
    return 3 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
