#!/usr/bin/env python3
"""What watching costs: the HTTP benchmark's 1,000-page live run (Benchmarks/http/bench.yaml
against the loopback test server) run by `reform run --live`, and the same run started from
`reform studio`'s page API and watched to its end, taking turns, best of RUNS. Prints each
side's best and median wall time, the ratio (the studio's target: at most 1.2x), and the peak
memory of each process (the CLI's per run, the studio's after all its runs: what a watch keeps
is bounded by RunWatch.Limits).

    Benchmarks/studio/measure.py                    # RUNS=5 PAGES=1000
    REFORM_BIN=.build/release/reform RUNS=9 Benchmarks/studio/measure.py

The studio's time is from the POST that starts the run to the first poll that sees it done,
polling every 5 ms (the page polls every 250 ms); the CLI's is the process's, start to exit.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REFORM = os.environ.get("REFORM_BIN", os.path.join(ROOT, ".build/release/reform"))
RUNS = int(os.environ.get("RUNS", "5"))
PAGES = int(os.environ.get("PAGES", "1000"))
PIPELINE = os.path.join(ROOT, "Benchmarks/http/bench.yaml")


def start_server():
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests/Server/reform_test_server.py"), "--port", "0"],
                              stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    match = re.search(r"listening on (\d+)", line)
    if not match:
        sys.exit(f"the test server did not start: {line}")
    return server, match.group(1)


def cli_run(environment, output):
    began = time.perf_counter()
    process = subprocess.Popen([REFORM, "run", PIPELINE, "--live", "--quiet", "--param", f"pages={PAGES}", "--output", output],
                               env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - began
    if status != 0:
        sys.exit(f"reform run failed: {process.stderr.read().decode()}")
    return seconds, usage.ru_maxrss / 1024


def main():
    if not os.access(REFORM, os.X_OK):
        sys.exit(f"no reform at {REFORM} (swift build -c release --product reform --product reform-studio, or REFORM_BIN=...)")
    server, port = start_server()
    scratch = tempfile.mkdtemp(prefix="reform-studio-bench-")
    environment = dict(os.environ, REFORM_BENCH_PORT=port, NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
    studio = subprocess.Popen([REFORM, "studio", PIPELINE, "--scratch", scratch + "/studio"], env=environment,
                              stdout=subprocess.PIPE, text=True)
    try:
        url = studio.stdout.readline().split()[-1]
        base, token = url.split("/?token=")

        def call(method, path, body=None):
            request = urllib.request.Request(base + path, method=method, data=body,
                                             headers={"X-Reform-Token": token, "Content-Type": "application/json"})
            with urllib.request.urlopen(request) as answer:
                return json.load(answer)

        def studio_run():
            began = time.perf_counter()
            call("POST", "/api/runs", json.dumps({"mode": "live", "params": {"pages": str(PAGES)}}).encode())
            while True:
                run = call("GET", "/api/runs/current")
                if run["phase"] != "running":
                    break
                time.sleep(0.005)
            seconds = time.perf_counter() - began
            if run["phase"] != "done" or run["watch"]["pages_seen"] != PAGES:
                sys.exit(f"the studio's run did not finish with {PAGES} pages: {run.get('phase')} {run.get('error', '')}")
            return seconds, run["seconds"], len(run["watch"]["pages"])

        cli, watched, engine, cli_memory, kept = [], [], [], [], 0
        for round_ in range(RUNS + 1):  # the first round warms up
            turns = [("cli", lambda: cli_run(environment, scratch + "/cli.ndjson")), ("studio", studio_run)]
            if round_ % 2:
                turns.reverse()
            for name, turn in turns:
                result = turn()
                if round_ == 0:
                    continue
                if name == "cli":
                    cli.append(result[0])
                    cli_memory.append(result[1])
                else:
                    watched.append(result[0])
                    engine.append(result[1])
                    kept = result[2]
        with open(f"/proc/{studio.pid}/status") as status:
            studio_peak = int(re.search(r"VmHWM:\s+(\d+)", status.read()).group(1)) / 1024
        print(f"{PAGES} live pages, best of {RUNS} (median in brackets)")
        print(f"  reform run --live        {min(cli) * 1000:8.1f} ms  ({statistics.median(cli) * 1000:.1f})  peak {max(cli_memory):.1f} MiB")
        print(f"  reform studio, watched   {min(watched) * 1000:8.1f} ms  ({statistics.median(watched) * 1000:.1f})"
              f"  engine {min(engine) * 1000:.1f} ms  peak {studio_peak:.1f} MiB after {RUNS + 1} runs, {kept} pages kept")
        print(f"  studio / cli             {min(watched) / min(cli):8.2f}x  (median {statistics.median(watched) / statistics.median(cli):.2f}x; target <= 1.2x)")
    finally:
        studio.terminate()
        studio.wait(timeout=30)
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
