#!/usr/bin/env python3
"""The property-list transform on 900,000 records (300,000 per manager), four ways:

  reform-jobs2   reform run --jobs 2 over the whole files (one process)
  spark-reform   Spark local[2] with reform_spark: one Reform per byte-range split
  spark-df       the same transform in PySpark's DataFrame API (local[2])
  duckdb         DuckDB with 2 threads (read_ndjson, COPY TO ndjson)

    python3 Benchmarks/spark/run.py --reform .build-release/release/reform [--records 900000] [--runs 3]

Best of N wall time per tool (the Spark session is started once, before any timing), records/s,
peak resident memory (the whole process tree, sampled every 50 ms: the JVM, Python workers and
Reform processes for Spark), the ratios the issue asks about, and a 10-node estimate from per-core
throughput. reform-jobs2's and spark-reform's outputs are checked byte for byte against each other;
the DataFrame and DuckDB outputs by record count (their JSON writers format differently).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Integrations", "spark"))
PIPELINE = os.path.join(ROOT, "Pipelines", "property-list.yaml")
FIELDS = {
    "zufang": ("id", "name", "title", "imageUrl"),
    "xinfang": ("xinfang_id", "xinfang_name", "xinfang_title", "xinfang_imageUrl"),
    "ershoufang": ("esf_id", "esf_name", "esf_title", "esf_imageUrl"),
}
KEYS = ("kPropertyListDataKeyID", "kPropertyListDataKeyName", "kPropertyListDataKeyTitle", "kPropertyListDataKeyImage")


def tree_rss(root: int) -> int:
    """Resident bytes of `root` and every process under it."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ppid, pages = int(fields[1]), int(fields[21])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
        rss[int(entry)] = pages * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack += children.get(pid, [])
    return total


class PeakMemory:
    """Samples the resident memory of a process tree in the background; `peak` is the highest."""

    def __init__(self, root: int, baseline: int = 0):
        self.root, self.baseline, self.peak = root, baseline, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss(self.root) - self.baseline)
            self._stop.wait(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def timed_process(args: list[str]) -> tuple[float, int]:
    started = time.monotonic()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    with PeakMemory(process.pid) as memory:
        if process.wait() != 0:
            raise RuntimeError(f"{args[0]} failed with {process.returncode}")
    return time.monotonic() - started, memory.peak


def line_count(paths: list[str]) -> int:
    count = 0
    for path in paths:
        with open(path, "rb") as f:
            count += sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description="Spark stage benchmark")
    parser.add_argument("--reform", default=os.path.join(ROOT, ".build-release", "release", "reform"))
    parser.add_argument("--records", type=int, default=900_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--split-mb", type=int, default=90, help="90: two splits per 178 MB file, 6 tasks")
    parser.add_argument("--cores-per-node", type=int, default=16)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    reform = os.path.abspath(args.reform)
    work = tempfile.mkdtemp(prefix="reform-spark-bench-")
    per_manager = args.records // 3
    subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "property-list", "generate.py"),
                    str(per_manager), work], check=True, stdout=subprocess.DEVNULL)
    inputs = {m: os.path.join(work, f"{m}.ndjson") for m in FIELDS}
    size = sum(os.path.getsize(p) for p in inputs.values())
    records = per_manager * 3
    print(f"{records} records, {size / 1e6:.0f} MB of NDJSON in {work}; best of {args.runs}", flush=True)

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StringType, StructField, StructType
    from reform_spark import run_batch

    started = time.monotonic()
    spark = (SparkSession.builder.master("local[2]").appName("reform-spark-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    session_seconds = time.monotonic() - started
    # Everything the session started before the timed jobs (the JVM) is not charged to a tool.
    results: dict[str, list[tuple[float, int]]] = {}

    def reform_jobs2():
        out = os.path.join(work, "reform.ndjson")
        command = [reform, "run", PIPELINE, "--format", "ndjson", "--jobs", "2", "--quiet", "--output", out]
        for m, p in inputs.items():
            command += ["--input", f"{m}={p}"]
        return timed_process(command)

    overheads: list[float] = []

    def spark_reform():
        out = os.path.join(work, "spark-reform")
        t0 = time.monotonic()
        with PeakMemory(os.getpid()) as memory:
            result = run_batch(spark, PIPELINE, inputs, out, reform=reform, split_bytes=args.split_mb << 20,
                               overwrite=True)
        # What each task spent outside Reform's own run: process start, Python worker, commit.
        overheads.extend(t["seconds"] - t["reform_seconds"] for t in result.task_stats)
        spark_reform.tasks = result.tasks
        return time.monotonic() - t0, memory.peak

    def spark_empty():
        t0 = time.monotonic()
        spark.sparkContext.parallelize(range(spark_reform.tasks), spark_reform.tasks).map(lambda x: x).collect()
        return time.monotonic() - t0, 0

    schemas = {m: StructType([StructField(f[0], LongType())] + [StructField(n, StringType()) for n in f[1:]])
               for m, f in FIELDS.items()}

    def spark_df():
        out = os.path.join(work, "spark-df")
        t0 = time.monotonic()
        with PeakMemory(os.getpid()) as memory:
            frames = [spark.read.schema(schemas[m]).json(p).select(*[F.col(a).alias(k) for a, k in zip(FIELDS[m], KEYS)])
                      for m, p in inputs.items()]
            union = frames[0].unionByName(frames[1]).unionByName(frames[2])
            union.write.mode("overwrite").json(out)
        return time.monotonic() - t0, memory.peak

    def duckdb_2():
        out = os.path.join(work, "duckdb.ndjson")
        selects = []
        for m, p in inputs.items():
            f = FIELDS[m]
            columns = "{" + ", ".join(f"'{c}': '{'BIGINT' if i == 0 else 'VARCHAR'}'" for i, c in enumerate(f)) + "}"
            selects.append(f"SELECT {', '.join(f'{a} AS {k}' for a, k in zip(f, KEYS))} "
                           f"FROM read_ndjson('{p}', columns={columns})")
        sql = (f"SET threads=2; COPY ({' UNION ALL '.join(selects)}) TO '{out}' (FORMAT JSON);")
        return timed_process([sys.executable, "-c", f"import duckdb; duckdb.connect().execute({sql!r})"])

    tools = {"reform-jobs2": reform_jobs2, "spark-reform": spark_reform, "spark-empty": spark_empty, "spark-df": spark_df,
             "duckdb": duckdb_2}
    for run in range(args.runs):
        for name, tool in tools.items():
            results.setdefault(name, []).append(tool())
            print(f"  run {run + 1} {name}: {results[name][-1][0]:.2f} s", flush=True)

    expected = open(os.path.join(work, "reform.ndjson"), "rb").read()
    parts = sorted(n for n in os.listdir(os.path.join(work, "spark-reform")) if n.startswith("part-"))
    got = b"".join(open(os.path.join(work, "spark-reform", n), "rb").read() for n in parts)
    assert got == expected, "spark-reform's parts differ from reform --jobs 2"
    df_parts = [os.path.join(work, "spark-df", n) for n in os.listdir(os.path.join(work, "spark-df")) if n.startswith("part-")]
    assert line_count(df_parts) == records, "the DataFrame job wrote another number of records"
    assert line_count([os.path.join(work, "duckdb.ndjson")]) == records, "DuckDB wrote another number of records"

    best = {name: min(r[0] for r in runs) for name, runs in results.items()}
    peak = {name: max(r[1] for r in runs) for name, runs in results.items()}
    print(f"\nSpark session start (not timed): {session_seconds:.1f} s")
    print(f"{'tool':<14}{'best s':>8}{'records/s':>12}{'peak MiB':>10}")
    for name in tools:
        print(f"{name:<14}{best[name]:>8.2f}{records / best[name]:>12,.0f}{peak[name] / 2**20:>10.0f}")
    print(f"\nspark-reform / reform-jobs2 time: {best['spark-reform'] / best['reform-jobs2']:.2f}x (target <= 1.5x)")
    print(f"spark-reform / spark-df throughput: {best['spark-df'] / best['spark-reform']:.2f}x (target >= 2x)")
    print(f"spark-reform / duckdb throughput: {best['duckdb'] / best['spark-reform']:.2f}x")
    print(f"spark-reform: {spark_reform.tasks} tasks; outside Reform each task spent {1000 * min(overheads):.0f}-"
          f"{1000 * max(overheads):.0f} ms (Reform's start, the Python worker, the commit); an empty job of as "
          f"many tasks takes {best['spark-empty']:.2f} s")
    per_core = records / best["spark-reform"] / 2
    cluster = per_core * 10 * args.cores_per_node
    print(f"\nper core in Spark: {per_core:,.0f} records/s ({per_core * size / records / 1e6:.0f} MB/s of input)")
    print(f"10 nodes x {args.cores_per_node} cores: ~{cluster / 1e6:.1f} M records/s, "
          f"{cluster * size / records / 1e9:.1f} GB/s of input ({cluster * size / records / 10 / 1e9:.2f} GB/s per node)")
    spark.stop()
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
