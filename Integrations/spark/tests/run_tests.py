#!/usr/bin/env python3
"""End-to-end checks of reform_spark in Spark local[2] mode (run by .ci/run).

    python3 Integrations/spark/tests/run_tests.py --reform .build/debug/reform

1. Batch: generated property-list inputs with injected bad lines (invalid UTF-8, bad JSON, a
   missing field), cut into byte ranges that fall mid-line: the parts concatenated in order equal
   `reform --jobs 1` over the whole files byte for byte; every dead letter of the single run is in
   some task's dead letters; in/out/rejected add up; `_SUCCESS` holds the totals.
2. The rejects policy: a lower max_rejects fails the job, publishes no part and no _SUCCESS, and
   keeps the dead letters.
3. Commit protocol: a second attempt of a committed task is dropped (no duplicate part); every
   task's first attempt crashing half-way through its part is retried by Spark, and the output
   is still one run's.
4. Fan-out: the loopback server's GitHub-like API, 25 repositories' issues in 3 shards, equal a
   single run's output.
Reform is shipped as a bundle tarball (reform-VERSION/bin/reform), the documented way.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.dirname(HERE))

from reform_spark import RejectsExceeded, commit_attempt, plan_splits, run_batch, run_fanout  # noqa: E402
from reform_spark import commit  # noqa: E402

MANAGERS = ["zufang", "xinfang", "ershoufang"]
PIPELINE = os.path.join(ROOT, "Pipelines", "property-list.yaml")
BAD_LINES = [b'{"id": 1, "name": "\xff\xfe broken utf-8", "title": "t", "imageUrl": "u"}',
             b'{"id": 2, "name": "unterminated',
             b'not json at all',
             b'{"unrelated": true}']
checks = 0


def check(condition: bool, message: str) -> None:
    global checks
    if not condition:
        raise AssertionError(message)
    checks += 1


def make_inputs(folder: str, n: int) -> dict[str, str]:
    """Generated records with the bad lines spread through each file."""
    os.makedirs(folder)
    subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "property-list", "generate.py"), str(n), folder],
                   check=True, stdout=subprocess.DEVNULL)
    inputs = {}
    for i, manager in enumerate(MANAGERS):
        path = os.path.join(folder, f"{manager}.ndjson")
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        for j, bad in enumerate(BAD_LINES[: 2 + i]):
            lines.insert((j + 1) * len(lines) // (len(BAD_LINES) + 1), bad)
        with open(path, "wb") as f:
            f.write(b"\n".join(lines))
        inputs[manager] = path
    return inputs


def single_run(reform: str, folder: str, inputs: dict[str, str]) -> tuple[bytes, list[dict], dict]:
    out, dead, stats = (os.path.join(folder, n) for n in ("single.ndjson", "single-dead.ndjson", "single-stats.json"))
    args = [reform, "run", PIPELINE, "--format", "ndjson", "--jobs", "1", "--output", out, "--dead-letter", dead,
            "--stats-file", stats, "--max-rejects", "1000000", "--quiet"]
    for manager, path in inputs.items():
        args += ["--input", f"{manager}={path}"]
    subprocess.run(args, check=True)
    with open(out, "rb") as f, open(stats) as s:
        return f.read(), read_ndjson([dead]), json.load(s)


def read_ndjson(paths: list[str]) -> list[dict]:
    entries = []
    for path in paths:
        with open(path, "rb") as f:
            entries += [json.loads(line) for line in f if line.strip()]
    return entries


def dead_key(entry: dict) -> tuple:
    """What identifies a dead letter whether it came from a whole file or a byte range."""
    return (entry["manager"], entry["code"], entry.get("text") or json.dumps(entry.get("record"), sort_keys=True))


def concatenated(paths: list[str]) -> bytes:
    data = b""
    for path in paths:
        with open(path, "rb") as f:
            data += f.read()
    return data


def make_bundle(reform: str, folder: str) -> str:
    """A bundle laid out as scripts/make-bundle.sh makes it: reform-VERSION/{bin/reform,lib/}."""
    version = subprocess.run([reform, "--version"], check=True, capture_output=True, text=True).stdout.split()[1]
    top = os.path.join(folder, f"reform-{version}")
    os.makedirs(os.path.join(top, "bin"))
    os.makedirs(os.path.join(top, "lib"))
    shutil.copy2(reform, os.path.join(top, "bin", "reform"))
    build = os.path.dirname(reform)
    for name in os.listdir(build):  # the shared SDK library the binary links (libReformSDK.so)
        if name.startswith("lib") and name.endswith(".so"):
            shutil.copy2(os.path.join(build, name), os.path.join(top, "lib", name))
    tarball = os.path.join(folder, f"reform-{version}-linux-x86_64.tar.gz")
    with tarfile.open(tarball, "w:gz", compresslevel=1) as tar:
        tar.add(top, arcname=f"reform-{version}")
    return tarball


def test_batch(spark, bundle: str, reform: str, work: str) -> None:
    inputs = make_inputs(os.path.join(work, "inputs"), 4000)
    expected, expected_dead, expected_stats = single_run(reform, work, inputs)
    sizes = sum(os.path.getsize(p) for p in inputs.values())
    split_bytes = sizes // 10 + 7  # odd sizes: ranges end mid-line
    splits = plan_splits(inputs, split_bytes)
    check(len(splits) >= 9, f"expected about 10 splits, planned {len(splits)}")
    result = run_batch(spark, PIPELINE, inputs, os.path.join(work, "out"), reform=bundle, split_bytes=split_bytes,
                       max_rejects=100)
    check(concatenated(result.parts) == expected, "the parts concatenated differ from reform --jobs 1")
    got_dead = read_ndjson(result.dead_letters)
    check(sorted(map(dead_key, got_dead)) == sorted(map(dead_key, expected_dead)),
          f"dead letters differ: {len(got_dead)} from the tasks, {len(expected_dead)} from one run")
    check(all(re.search(r"@\d+$", e["input"]) for e in got_dead if e["code"] in ("invalid-json",)),
          "a byte range's dead letters name file@offset")
    check(result.rejected == expected_stats["rejected"] == len(expected_dead) == 9,
          f"rejected: {result.rejected} in the job, {expected_stats['rejected']} in one run")
    check(result.records_in == expected_stats["in"] and result.records_out == expected_stats["out"],
          f"counts: job {result.records_in}/{result.records_out}, one run {expected_stats['in']}/{expected_stats['out']}")
    check(result.records_in == result.records_out + result.rejected, "in = out + rejected")
    with open(os.path.join(result.output, "_SUCCESS")) as f:
        check(json.load(f)["out"] == result.records_out, "_SUCCESS holds the totals")
    visible = sorted(n for n in os.listdir(result.output) if not n.startswith(("_", ".")))
    check(visible == [os.path.basename(p) for p in result.parts], f"only parts are visible to readers: {visible}")

    # The rejects policy: 9 rejected, 5 allowed.
    failed = os.path.join(work, "out-failed")
    try:
        run_batch(spark, PIPELINE, inputs, failed, reform=bundle, split_bytes=split_bytes, max_rejects=5)
        check(False, "max_rejects=5 with 9 rejected should fail the job")
    except RejectsExceeded as error:
        check(error.result.rejected == 9, "the failure carries the counts")
    names = os.listdir(failed)
    check("_SUCCESS" not in names and not any(n.startswith("part-") for n in names), f"nothing published: {names}")
    check(len(read_ndjson([os.path.join(failed, "_dead-letters", n)
                           for n in os.listdir(os.path.join(failed, "_dead-letters"))])) == 9, "dead letters kept")
    # Reusing a finished output folder needs overwrite=True.
    try:
        run_batch(spark, PIPELINE, inputs, result.output, reform=bundle, split_bytes=split_bytes, max_rejects=100)
        check(False, "writing over a finished job's output should be refused")
    except FileExistsError:
        check(True, "")


def test_retried_attempts(spark, reform: str, work: str) -> None:
    """Every task's first attempt crashes half-way through writing its part; Spark retries it
    (local[2,2]: two cores, two attempts per task) and the job's output is still exactly one run's."""
    inputs = make_inputs(os.path.join(work, "retry-inputs"), 500)
    expected, _, _ = single_run(reform, work, inputs)
    markers = os.path.join(work, "markers")
    os.makedirs(markers)
    flaky = os.path.join(work, "flaky-reform")
    with open(flaky, "w") as f:
        f.write(f"""#!{sys.executable}
import hashlib, os, sys
args = sys.argv[1:]
marker = os.path.join({markers!r}, hashlib.sha1(args[args.index("--input") + 1].encode()).hexdigest())
if not os.path.exists(marker):
    open(marker, "w").close()
    with open(args[args.index("--output") + 1], "w") as out:
        out.write('{{"half": "a part')
    sys.exit("flaky-reform: crashed on purpose (first attempt)")
os.execv({reform!r}, [{reform!r}] + args)
""")
    os.chmod(flaky, 0o755)
    print("reform_spark: every task's first attempt now crashes on purpose; Spark logs each, then retries it",
          flush=True)
    result = run_batch(spark, PIPELINE, inputs, os.path.join(work, "out-retried"), reform=flaky,
                       split_bytes=sum(os.path.getsize(p) for p in inputs.values()) // 4, max_rejects=100)
    check(len(os.listdir(markers)) == result.tasks >= 4, "every task's first attempt crashed")
    check(concatenated(result.parts) == expected, "retried attempts left the parts different from one run")
    check(not os.path.exists(os.path.join(result.output, "_temporary")), "the crashed attempts' folders are gone")


def test_commit_protocol(work: str) -> None:
    output = os.path.join(work, "commit")
    os.makedirs(output)
    first = commit.attempt_folder(output, 0, 0)
    second = commit.attempt_folder(output, 0, 1)
    for folder, text in ((first, b"a\n"), (second, b"a\n")):
        with open(os.path.join(folder, "part.ndjson"), "wb") as f:
            f.write(text)
    check(commit_attempt(output, 0, first), "the first attempt commits")
    check(not commit_attempt(output, 0, second), "a second attempt of the same task is dropped")
    check(not os.path.exists(second) and os.listdir(os.path.join(output, "_tasks")) == ["00000"],
          "the losing attempt leaves nothing")


def test_shipping_leaves_nothing() -> None:
    """The zip `ship_package` makes for the executors goes with the driver process that made it
    (each driver left a reform-spark-* folder in the temporary folder)."""
    driver = (
        "import sys; sys.path.insert(0, %r)\n"
        "from reform_spark import shipping\n"
        "class Context:\n"
        "    def addPyFile(self, path): print(path)\n"
        "shipping.ship_package(Context())\n"
    ) % os.path.dirname(HERE)
    shipped = subprocess.run([sys.executable, "-c", driver], check=True, capture_output=True, text=True).stdout.strip()
    check(shipped.endswith("reform_spark.zip"), "the driver shipped the package: %r" % shipped)
    check(not os.path.exists(os.path.dirname(shipped)), "the shipped zip's folder is gone with its driver: %s" % shipped)


def start_server() -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Server", "reform_test_server.py"),
                               "--port", "0", "--quiet"], stdout=subprocess.PIPE)
    line = server.stdout.readline().decode()
    match = re.match(r"listening on (\d+)", line)
    if not match:
        server.kill()
        raise RuntimeError(f"the test server said {line!r}")
    return server, int(match.group(1))


def test_fanout(spark, bundle: str, reform: str, work: str) -> None:
    server, port = start_server()
    try:
        with open(os.path.join(ROOT, "Pipelines", "github-issues.yaml")) as f:
            text = f.read().replace("127.0.0.1:8808", f"127.0.0.1:{port}")
        pipeline = os.path.join(work, "github-issues.yaml")
        with open(pipeline, "w") as f:
            f.write(text)
        single = subprocess.run([reform, "run", pipeline, "--run", "ndjson", "--live", "--param", "org=org-25",
                                 "--quiet"], check=True, capture_output=True).stdout
        lines = single.count(b"\n")
        check(lines > 50, f"the single run fetched {lines} issues")
        result = run_fanout(spark, pipeline, os.path.join(work, "fanout"), reform=bundle, shards=3, run="ndjson",
                            params={"org": "org-25"}, state_folder=os.path.join(work, "state"))
        check(concatenated(result.parts) == single, "3 shards concatenated differ from one run")
        check(result.records_out == single.count(b"\n") and result.rejected == 0, "fan-out counts")
        check(all(s["out"] > 0 for s in result.task_stats), "every shard fetched some repositories' issues")
    finally:
        server.terminate()
        server.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reform", default=os.path.join(ROOT, ".build", "debug", "reform"))
    parser.add_argument("--bundle", help="the tarball scripts/make-bundle.sh made (default: one laid out alike from --reform)")
    args = parser.parse_args()
    reform = os.path.abspath(args.reform)
    started = time.monotonic()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    work = tempfile.mkdtemp(prefix="reform-spark-test-")
    spark = (SparkSession.builder.master("local[2,2]").appName("reform-spark-tests")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        session = time.monotonic() - started
        bundle = os.path.abspath(args.bundle) if args.bundle else make_bundle(reform, work)
        test_commit_protocol(work)
        test_shipping_leaves_nothing()
        test_batch(spark, bundle, reform, work)
        test_retried_attempts(spark, reform, work)
        test_fanout(spark, bundle, reform, work)
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"reform_spark: ok {checks} checks in {time.monotonic() - started:.1f} s "
          f"(Spark session start {session:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
