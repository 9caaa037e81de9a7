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
   single run's output, with its counts (parents counted once); incremental over two jobs, the
   second fetching only what changed, as a single incremental run does.
5. Folder inputs: every name Reform reads in a folder (`_`-prefixed, .json, .gz, .yaml) is read
   by the job too; .gz, .json and .yaml files are whole-file tasks.
6. Refused up front: runs whose outputs go to a file (`path:`) or a table, malformed byte ranges,
   standard input and tables as inputs, a folder entry Reform would fail on.
7. The package ships itself when imported from a zip (`spark-submit --py-files reform_spark.zip`).
Reform is shipped as a bundle tarball (reform-VERSION/bin/reform), the documented way.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

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
    subprocess.run(args, check=True, stderr=subprocess.DEVNULL)
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
    check_dead_letter_offsets(got_dead, splits)
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


def line_at(path: str, offset: int) -> bytes:
    with open(path, "rb") as f:
        if offset > 0:
            f.seek(offset - 1)
            check(f.read(1) == b"\n", f"{path}@{offset} is not where a line starts")
        return f.readline().rstrip(b"\n")


def check_dead_letter_offsets(entries: list[dict], splits) -> None:
    """Every dead letter of a byte range, the input stage's and the reformer steps' alike, names
    `file@offset` of its own line (a reformer step's named `PATH:N`, N counted from the range's
    start: another line of the file)."""
    reformer_steps_past_zero = 0
    for entry in entries:
        match = re.fullmatch(r"(.+)@(\d+)", entry.get("input", ""))
        check(match is not None, f"a byte range's dead letter names file@offset: {entry}")
        path, offset = match.group(1), int(match.group(2))
        line = line_at(path, offset)
        if entry["stage"] == "input":
            check(line.decode("utf-8", "replace") == entry["text"], f"{path}@{offset} holds {line!r}, not {entry}")
        else:
            check(json.loads(line) == entry["record"], f"{path}@{offset} holds {line!r}, not the record of {entry}")
            split = next(s for s in splits if s.path == path and s.start <= offset < s.end)
            reformer_steps_past_zero += split.start > 0
    check(reformer_steps_past_zero > 0, "some reformer step rejects lie in ranges that do not start at 0")


def test_folder_inputs(spark, bundle: str, reform: str, work: str) -> None:
    """A folder stands for every file one `reform run` of it reads: `_`-prefixed names, .json,
    .gz and .yaml files too (the planner took only .ndjson/.jsonl and skipped `_` names: half
    the records, silently); those that cannot be read from the middle are whole-file tasks."""
    generated = os.path.join(work, "folder-generated")
    os.makedirs(generated)
    subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "property-list", "generate.py"), "1400", generated],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(generated, "zufang.ndjson"), "rb") as f:
        lines = f.read().splitlines()
    chunks = [lines[i * 200:(i + 1) * 200] for i in range(7)]
    folder = os.path.join(work, "folder-input")
    os.makedirs(folder)

    def write(name: str, data: bytes) -> None:
        opener = gzip.open if name.endswith(".gz") else open
        with opener(os.path.join(folder, name), "wb") as f:
            f.write(data)

    def as_array(chunk: list[bytes]) -> bytes:
        return b"[" + b",\n".join(chunk) + b"]\n"

    write("_early.ndjson", b"\n".join(chunks[0]) + b"\n")
    write("a.ndjson", b"\n".join(chunks[1]) + b"\nnot json\n")
    write("b.jsonl", b"\n".join(chunks[2]) + b"\n")
    write("c.json", as_array(chunks[3]))
    write("d.ndjson.gz", b"\n".join(chunks[4]) + b"\n")
    write("e.jsonl.gz", b"\n".join(chunks[5]) + b"\n")
    write("f.json.gz", as_array(chunks[6]))
    write("g.yaml", b'- { "id": 9001, "name": "yaml one", "title": "t", "imageUrl": "u" }\n')
    write("h.yml", b'- { "id": 9002, "name": "yaml two", "title": "t", "imageUrl": "u" }\n')
    for skipped in (".hidden.ndjson", "notes.txt", "_SUCCESS"):
        write(skipped, b'{"id": 1, "name": "never read", "title": "t", "imageUrl": "u"}\n')
    inputs = {"zufang": folder}
    expected, expected_dead, expected_stats = single_run(reform, work, inputs)
    check(expected_stats["in"] == 1403, f"one run reads every file Reform reads in the folder: {expected_stats['in']}")
    result = run_batch(spark, PIPELINE, inputs, os.path.join(work, "out-folder"), reform=bundle, split_bytes=20_000,
                       max_rejects=100)
    check(result.records_in == expected_stats["in"] and result.records_out == expected_stats["out"],
          f"a folder's counts: job {result.records_in}/{result.records_out}, one run "
          f"{expected_stats['in']}/{expected_stats['out']}")
    check(concatenated(result.parts) == expected, "a folder's parts concatenated differ from one run over it")
    check(len(read_ndjson(result.dead_letters)) == len(expected_dead) == 1, "the folder's bad line is a dead letter")
    splits = plan_splits(inputs, 20_000)
    check([os.path.basename(s.path) for s in splits if s.whole] == ["c.json", "d.ndjson.gz", "e.jsonl.gz", "f.json.gz",
                                                                    "g.yaml", "h.yml"],
          f"whole-file tasks: {[s.describe() for s in splits if s.whole]}")
    check(sum(1 for s in splits if s.path.endswith("a.ndjson")) > 1, "an NDJSON file is still split into ranges")


def expect_refusal(call, *fragments: str) -> str:
    try:
        call()
    except ValueError as error:
        message = str(error)
        check(all(f in message for f in fragments), f"the refusal says {fragments}: {message}")
        return message
    check(False, f"expected a refusal saying {fragments}")
    return ""


def test_refusals(spark, bundle: str, work: str) -> None:
    """What a job cannot do right is refused before any task writes: outputs every task would
    write to (a file, a table), and inputs that cannot be split or shared."""
    with open(PIPELINE) as f:
        text = f.read()
    database = os.path.join(work, "refused", "listings.db")
    os.makedirs(os.path.dirname(database))
    pipeline = os.path.join(work, "refused", "property-list.yaml")
    with open(pipeline, "w") as f:
        f.write(text.replace("sqlite: out/property-list.db", f"sqlite: {database}")
                .replace("output: { rows: listing-row, format: table }",
                         f"output: {{ format: ndjson, path: {os.path.join(work, 'refused', 'same.ndjson')} }}"))
    inputs = make_inputs(os.path.join(work, "refused", "inputs"), 100)
    out = os.path.join(work, "refused", "out")
    expect_refusal(lambda: run_batch(spark, pipeline, inputs, out, reform=bundle, run="sqlite", split_bytes=4000),
                   "run 'sqlite'", "output 1", "the table 'listings'", "every task")
    expect_refusal(lambda: run_batch(spark, pipeline, inputs, out, reform=bundle, run="rows", split_bytes=4000),
                   "run 'rows'", "same.ndjson (path:)", "own part")
    expect_refusal(lambda: run_batch(spark, pipeline, inputs, out, reform=bundle, run="nope"), "no run called 'nope'")
    check(not os.path.exists(out) and not os.path.exists(database)
          and not os.path.exists(os.path.join(work, "refused", "same.ndjson")), "nothing was written")

    zufang = inputs["zufang"]
    size = os.path.getsize(zufang)
    expect_refusal(lambda: plan_splits({"zufang": f"{zufang}@200:100"}), "'@200:100' ends before it starts")
    expect_refusal(lambda: plan_splits({"zufang": f"{zufang}@-1:5"}), "'@-1:5' is not a byte range")
    expect_refusal(lambda: plan_splits({"zufang": f"{zufang}@5"}), "'@5' is not a byte range")
    ranged = plan_splits({"zufang": f"{zufang}@100:{size}"}, size // 3)
    check([(s.start, s.end) for s in ranged][0] == (100, 100 + size // 3) and ranged[-1].end == size,
          f"a range given is split within it: {ranged}")
    expect_refusal(lambda: plan_splits({"zufang": "-"}), "standard input")
    expect_refusal(lambda: plan_splits({"zufang": "sqlite:x.db#t"}), "is a table")
    expect_refusal(lambda: plan_splits({"zufang": os.path.join(work, "missing.ndjson")}), "no such file")
    odd = os.path.join(work, "refused", "odd")
    os.makedirs(os.path.join(odd, "sub.ndjson"))
    expect_refusal(lambda: plan_splits({"zufang": odd}), "sub.ndjson is not a regular file")
    with open(os.path.join(odd, "sub.ndjson", "notes.txt"), "w") as f:
        f.write("not read\n")
    expect_refusal(lambda: plan_splits({"zufang": os.path.join(odd, "sub.ndjson")}), "holds no input files")


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
if "--input" not in args:  # the job reading the pipeline (reform cat)
    os.execv({reform!r}, [{reform!r}] + args)
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
    check(re.fullmatch(r".*/reform_spark-[0-9a-f]{16}\.zip", shipped) is not None, "the driver shipped the package: %r" % shipped)
    check(not os.path.exists(os.path.dirname(shipped)), "the shipped zip's folder is gone with its driver: %s" % shipped)


def test_shipping_from_a_zip(bundle: str, reform: str, work: str) -> None:
    """Imported from the zip the README makes, the package ships itself: `spark-submit
    --py-files reform_spark.zip job.py` runs a job (`ship_package` listed the package's folder:
    NotADirectoryError), and the zip it ships holds the package's modules."""
    archive = os.path.join(work, "reform_spark.zip")
    subprocess.run([sys.executable, "-m", "zipfile", "-c", archive, "reform_spark/"], cwd=os.path.dirname(HERE),
                   check=True)
    driver = (
        "import sys, zipfile; sys.path.insert(0, %r)\n"
        "import reform_spark\n"
        "from reform_spark import shipping\n"
        "assert '.zip' in reform_spark.__file__, reform_spark.__file__\n"
        "class Context:\n"
        "    def addPyFile(self, path): print(' '.join(sorted(zipfile.ZipFile(path).namelist())))\n"
        "shipping.ship_package(Context())\n"
    ) % archive
    shipped = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True)
    check(shipped.returncode == 0, "shipping from a zip: " + shipped.stderr.strip()[-800:])
    package = os.path.join(os.path.dirname(HERE), "reform_spark")
    modules = sorted("reform_spark/" + n for n in os.listdir(package) if n.endswith(".py"))
    check(shipped.stdout.split() == modules, f"the zip shipped holds the package's modules: {shipped.stdout!r}")

    inputs = make_inputs(os.path.join(work, "submit-inputs"), 300)
    expected, _, _ = single_run(reform, work, inputs)
    job = os.path.join(work, "job.py")
    output = os.path.join(work, "out-submitted")
    with open(job, "w") as f:
        f.write(f"""import sys
import reform_spark
from pyspark.sql import SparkSession
assert ".zip" in reform_spark.__file__, reform_spark.__file__
spark = SparkSession.builder.appName("reform-spark-submit-test").getOrCreate()
result = reform_spark.run_batch(spark, {PIPELINE!r}, {inputs!r}, {output!r}, reform={bundle!r}, max_rejects=100)
spark.stop()
print("tasks", result.tasks)
""")
    import pyspark
    submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    done = subprocess.run([submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false", "--py-files", archive, job],
                          capture_output=True, text=True)
    check(done.returncode == 0, "spark-submit --py-files reform_spark.zip: " + done.stderr.strip()[-1500:])
    parts = sorted(os.path.join(output, n) for n in os.listdir(output) if n.startswith("part-"))
    check(len(parts) > 1 and concatenated(parts) == expected, "the submitted job's parts are one run's output")


def start_server() -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Server", "reform_test_server.py"),
                               "--port", "0", "--quiet"], stdout=subprocess.PIPE)
    line = server.stdout.readline().decode()
    match = re.match(r"listening on (\d+)", line)
    if not match:
        server.kill()
        raise RuntimeError(f"the test server said {line!r}")
    return server, int(match.group(1))


def parent_requests(port: int) -> int:
    """How many requests for an organisation's repositories (the parent level) the server has answered."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_log?summary=1") as response:
        paths = json.load(response)["paths"]
    return sum(count for path, count in paths.items() if path.startswith("/gh/orgs/"))


def fanout_single_run(reform: str, pipeline: str, work: str, name: str) -> tuple[bytes, dict]:
    """One incremental run of the whole fan-out on standard output, with its own state."""
    stats = os.path.join(work, f"{name}-stats.json")
    out = subprocess.run([reform, "run", pipeline, "--run", "ndjson", "--live", "--param", "org=org-25", "--quiet",
                          "--state", os.path.join(work, "single-state.json"), "--stats-file", stats],
                         check=True, capture_output=True).stdout
    with open(stats) as f:
        return out, json.load(f)


def test_fanout(spark, bundle: str, reform: str, work: str) -> None:
    """3 shards equal one run, counted as one run counts (the parents once, not once a shard),
    and stay incremental across jobs: each shard's state is committed with its part, so the
    second job fetches only what changed (every attempt's fresh part made the state describe
    another file: each job fetched everything again)."""
    server, port = start_server()
    try:
        with open(os.path.join(ROOT, "Pipelines", "github-issues.yaml")) as f:
            text = f.read().replace("127.0.0.1:8808", f"127.0.0.1:{port}")
        for_each = "    for_each: { manager: repos, params: { owner: owner.login, repo: name }, concurrency: 4 }\n"
        check(for_each in text, "the issues manager fans out over repos")
        text = text.replace(for_each, for_each + "    incremental: { cursor: updated_at, param: since, lookback: 10m, key: id }\n")
        pipeline = os.path.join(work, "github-issues.yaml")
        with open(pipeline, "w") as f:
            f.write(text)
        state_folder = os.path.join(work, "state")
        before = parent_requests(port)
        single, single_stats = fanout_single_run(reform, pipeline, work, "single-1")
        single_parents = parent_requests(port) - before
        check(single_parents > 0, "the single run fetched the repositories")
        lines = single.count(b"\n")
        check(lines > 50, f"the single run fetched {lines} issues")
        result = run_fanout(spark, pipeline, os.path.join(work, "fanout"), reform=bundle, shards=3, run="ndjson",
                            params={"org": "org-25"}, state_folder=state_folder)
        job_parents = parent_requests(port) - before - single_parents
        check(job_parents == single_parents,
              f"the job fetched the repositories once ({job_parents} requests; one run sends {single_parents}), not once a shard")
        check(concatenated(result.parts) == single, "3 shards concatenated differ from one run")
        check(result.records_out == lines and result.rejected == 0, "fan-out counts")
        check(result.records_in == single_stats["in"],
              f"in: {result.records_in} in 3 shards, {single_stats['in']} in one run (parents counted once)")
        check(all(s["out"] > 0 for s in result.task_stats), "every shard fetched some repositories' issues")
        check(sorted(os.listdir(state_folder)) == [f"shard-{i}-of-3.json" for i in range(3)],
              f"one state per shard: {os.listdir(state_folder)}")

        request = urllib.request.Request(f"http://127.0.0.1:{port}/gh/_admin/advance", method="POST",
                                         data=b'{"touch": 2, "add": 1}', headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request).read()
        changed, _ = fanout_single_run(reform, pipeline, work, "single-2")
        changed_lines = changed.count(b"\n")
        check(0 < changed_lines < lines // 2, f"the second single run fetched {changed_lines} of {lines}")
        second = run_fanout(spark, pipeline, os.path.join(work, "fanout-2"), reform=bundle, shards=3, run="ndjson",
                            params={"org": "org-25"}, state_folder=state_folder)
        check(second.records_out == changed_lines,
              f"the second job fetched {second.records_out} issues, one incremental run {changed_lines}")
        check(concatenated(second.parts) == changed, "the second job's parts differ from the second incremental run")
        check(sorted(os.listdir(state_folder)) == [f"shard-{i}-of-3.json" for i in range(3)],
              f"still one state per shard: {os.listdir(state_folder)}")
        expect_refusal(lambda: run_fanout(spark, pipeline, os.path.join(work, "fanout-4"), reform=bundle, shards=4,
                                          run="ndjson", params={"org": "org-25"}, state_folder=state_folder),
                       "in 3 shards", "this job has 4")
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
        for test, args in ((test_commit_protocol, (work,)), (test_shipping_leaves_nothing, ()),
                           (test_shipping_from_a_zip, (bundle, reform, work)), (test_refusals, (spark, bundle, work)),
                           (test_batch, (spark, bundle, reform, work)), (test_folder_inputs, (spark, bundle, reform, work)),
                           (test_retried_attempts, (spark, reform, work)), (test_fanout, (spark, bundle, reform, work))):
            began = time.monotonic()
            test(*args)
            print(f"reform_spark: {test.__name__} passed in {time.monotonic() - began:.1f} s", flush=True)
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"reform_spark: ok {checks} checks in {time.monotonic() - started:.1f} s "
          f"(Spark session start {session:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
