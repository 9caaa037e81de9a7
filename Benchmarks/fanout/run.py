#!/usr/bin/env python3
"""Fan-out benchmark: 100 partitions x 10 pages x 10 records from the loopback server's
GitHub-like API (Tests/Server), through a parent -> child Reform manager at concurrency 1, 4
and 8, against `curl --parallel --parallel-max N` over the same URLs (the 100 first pages, then
each partition's next nine pages as a second batch). The server waits DELAY_MS before every
answer, as a remote API's latency would (0 makes it a CPU benchmark of the loopback server).

    python3 Benchmarks/fanout/run.py
    RUNS=3 CONCURRENCY="1 8" python3 Benchmarks/fanout/run.py

Environment: RUNS=3 (best of), CONCURRENCY="1 4 8", DELAY_MS=5, PARTITIONS=100, PAGES=10,
PER_PAGE=10, REFORM_BIN=.build/release/reform, STRICT=1 (exit 1 when Reform is over 1.5x
curl's time at some concurrency). Exits 1 when Reform's records differ between
concurrencies or from what curl fetched.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUNS = int(os.environ.get("RUNS", "3"))
LEVELS = [int(n) for n in os.environ.get("CONCURRENCY", "1 4 8").split()]
DELAY_MS = int(os.environ.get("DELAY_MS", "5"))
PARTITIONS = int(os.environ.get("PARTITIONS", "100"))
PAGES = int(os.environ.get("PAGES", "10"))
PER_PAGE = int(os.environ.get("PER_PAGE", "10"))
REFORM = os.environ.get("REFORM_BIN", os.path.join(ROOT, ".build/release/reform"))

PIPELINE = """\
reform: 1
name: fanout-bench
services:
  github: {{ base_url: "http://127.0.0.1:{port}/gh", connections: {n} }}
managers:
  repos:
    service: github
    path: /orgs/{{org}}/repos
    params: {{ org: org-{partitions}, per_page: 100 }}
    paging: {{ policy: link }}
  issues:
    service: github
    path: /repos/{{owner}}/{{repo}}/issues
    params: {{ owner: {{ required: true }}, repo: {{ required: true }}, state: all, per_page: {per_page} }}
    paging: {{ policy: link }}
    for_each: {{ manager: repos, params: {{ owner: owner.login, repo: name }}, concurrency: {n} }}
runs:
  default: {{ managers: [issues], output: {{ format: ndjson, path: out/issues.ndjson }} }}
"""


def post(port, path, body):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def timed(command, cwd):
    """Runs `command` in `cwd`; returns (seconds, its peak RSS in MB, its stdout). The peak is
    GNU time's (`%M`, what its own child used): a child this Python process started would report
    the Python process's peak (Linux carries the peak across exec)."""
    with tempfile.NamedTemporaryFile() as out, tempfile.NamedTemporaryFile() as peak:
        started = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak.name, *command], cwd=cwd, stdout=out, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"run.py: {command[0]} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
        kilobytes = int(open(peak.name).read().split()[-1])
        return seconds, kilobytes / 1024, open(out.name, "rb").read()


def main():
    if not os.access("/usr/bin/time", os.X_OK):
        sys.exit("run.py: needs GNU time at /usr/bin/time (apt-get install time)")
    if not os.access(REFORM, os.X_OK):
        sys.exit(f"run.py: no reform binary at {REFORM}; build it with 'swift build -c release --product reform'")
    server = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "Tests/Server/reform_test_server.py"), "--port", "0", "--quiet"],
        stdout=subprocess.PIPE)
    port = int(re.match(rb"listening on (\d+)", server.stdout.readline()).group(1))
    try:
        post(port, "/gh/_admin/config", {"issues_per_repo": PAGES * PER_PAGE, "delay_ms": DELAY_MS})
        repos = [f"repo-{k}" for k in range(1, PARTITIONS + 1)]
        base = f"http://127.0.0.1:{port}/gh/repos/org-{PARTITIONS}"
        first = [f"{base}/{r}/issues?state=all&per_page={PER_PAGE}" for r in repos]
        rest = [f"{base}/{r}/issues?state=all&per_page={PER_PAGE}&page={p}" for r in repos for p in range(2, PAGES + 1)]
        work = tempfile.mkdtemp(prefix="reform-fanout-")
        print(f"fan-out: {PARTITIONS} partitions x {PAGES} pages x {PER_PAGE} records, server latency {DELAY_MS} ms, "
              f"best of {RUNS}")
        print(f"{'tool':<8} {'conc':>4} {'seconds':>8} {'pages/s':>8} {'peak MB':>8}  ratio to curl")
        hashes = set()
        failed = False
        for n in LEVELS:
            with open(os.path.join(work, "pipeline.yaml"), "w") as f:
                f.write(PIPELINE.format(port=port, n=n, partitions=PARTITIONS, per_page=PER_PAGE))
            best = {}
            for _ in range(RUNS):
                for tool in ("curl", "reform"):
                    if tool == "curl":
                        config = os.path.join(work, "curl.txt")
                        seconds = 0.0
                        peak = 0.0
                        bodies = b""
                        for batch in (first, rest):
                            with open(config, "w") as f:
                                f.write("".join(f'url = "{u}"\n' for u in batch))
                            s, m, out = timed(["curl", "-s", "--parallel", "--parallel-max", str(n), "-K", config], work)
                            seconds += s
                            peak = max(peak, m)
                            bodies += out
                        count = bodies.count(b'"number":')
                        if count != PARTITIONS * PAGES * PER_PAGE:
                            sys.exit(f"run.py: curl fetched {count} records")
                    else:
                        seconds, peak, _ = timed([REFORM, "run", "pipeline.yaml", "--live", "--quiet"], work)
                        with open(os.path.join(work, "out/issues.ndjson"), "rb") as f:
                            data = f.read()
                        lines = data.count(b"\n")
                        if lines != PARTITIONS * PAGES * PER_PAGE:
                            sys.exit(f"run.py: reform wrote {lines} records")
                        hashes.add(hashlib.sha256(data).hexdigest())
                    if tool not in best or seconds < best[tool][0]:
                        best[tool] = (seconds, peak)
            pages = PARTITIONS * PAGES + 1
            for tool in ("curl", "reform"):
                seconds, peak = best[tool]
                ratio = seconds / best["curl"][0]
                print(f"{tool:<8} {n:>4} {seconds:>8.3f} {pages / seconds:>8.0f} {peak:>8.1f}  {ratio:.2f}x")
            if best["reform"][0] > 1.5 * best["curl"][0]:
                failed = True
        same = len(hashes) == 1
        print(f"reform output identical at every concurrency: {'yes' if same else 'NO'} ({len(hashes)} distinct)")
        if not same:
            return 1
        if failed and os.environ.get("STRICT") == "1":
            return 1
        return 0
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
