"""Reform as a Spark stage: one Reform process per task, over a byte range or a shard."""
from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

from . import commit
from .shipping import ShippedReform, ship_package, ship_reform
from .splits import DEFAULT_SPLIT_BYTES, Split, plan_splits

#: Passed to every task: the job, not a task, applies the rejects policy.
_NO_TASK_LIMIT = str(2**62)


@dataclass(frozen=True)
class Shard:
    """One task's share of a fan-out: `--shard INDEX/COUNT`, with its own state file if any."""

    index: int
    count: int
    state: str | None = None

    def reform_args(self) -> list[str]:
        """The arguments that make one Reform run fetch this shard."""
        args = ["--shard", f"{self.index}/{self.count}"]
        return args + (["--state", self.state] if self.state else [])

    def describe(self) -> str:
        """`shard 2/8`, for messages."""
        return f"shard {self.index}/{self.count}"


@dataclass
class JobResult:
    """What a job did: its output folder, totals, per-task stats (in task order), dead letters."""

    output: str
    tasks: int
    records_in: int
    records_out: int
    rejected: int
    seconds: float
    parts: list[str] = field(default_factory=list)
    dead_letters: list[str] = field(default_factory=list)
    task_stats: list[dict] = field(default_factory=list)

    def totals(self) -> dict:
        """The `_SUCCESS` file's contents."""
        return {"tasks": self.tasks, "in": self.records_in, "out": self.records_out, "rejected": self.rejected,
                "seconds": round(self.seconds, 3)}


class RejectsExceeded(RuntimeError):
    """More records were rejected than the job allows (`max_rejects`); nothing was published."""

    def __init__(self, result: JobResult, max_rejects: int):
        self.result = result
        super().__init__(
            f"{result.rejected} records rejected, more than max_rejects={max_rejects}: output not published "
            f"(no _SUCCESS); the rejected records are in {os.path.join(result.output, '_dead-letters')}")


@dataclass(frozen=True)
class _TaskSpec:
    """Everything a task needs, pickled once for the job."""

    shipped: ShippedReform
    pipeline: str
    output: str
    common: tuple[str, ...]


def _run_task(spec: _TaskSpec, items: Iterator[tuple[int, Split | Shard]]) -> Iterator[dict]:
    """Runs Reform for each task item of a Spark partition and commits its attempt."""
    from pyspark import TaskContext

    context = TaskContext.get()
    attempt = context.attemptNumber() if context else 0
    reform, env = spec.shipped.locate()
    for index, item in items:
        folder = commit.attempt_folder(spec.output, index, attempt)
        stats_path = os.path.join(folder, "stats.json")
        command = [reform, "run", spec.pipeline, *spec.common, "--format", "ndjson", "--quiet",
                   "--output", os.path.join(folder, "part.ndjson"),
                   "--dead-letter", os.path.join(folder, "dead.ndjson"),
                   "--stats-file", stats_path, "--max-rejects", _NO_TASK_LIMIT, *item.reform_args()]
        started = time.monotonic()
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env=env)
        if done.returncode != 0:
            # A damaged input or failed fetch fails the task: Spark retries it, then fails the job.
            raise RuntimeError(f"reform exited {done.returncode} on task {index} ({item.describe()}): "
                               + done.stderr.decode("utf-8", "replace").strip()[-2000:])
        with open(stats_path) as f:
            stats = json.load(f)
        committed = commit.commit_attempt(spec.output, index, folder)
        yield {"task": index, "what": item.describe(), "attempt": attempt, "committed": committed,
               "in": stats["in"], "out": stats["out"], "rejected": stats["rejected"],
               "seconds": time.monotonic() - started, "reform_seconds": stats["seconds"],
               "peak_rss_bytes": stats.get("peak_rss_bytes", 0)}


def _run_job(spark, reform: str, pipeline: str, output: str, items: Sequence[Split | Shard], common: list[str],
             max_rejects: int, overwrite: bool) -> JobResult:
    sc = spark.sparkContext
    output = os.path.abspath(output)
    commit.prepare_output(output, overwrite)
    spec = _TaskSpec(ship_reform(sc, reform), os.path.abspath(pipeline), output, tuple(common))
    ship_package(sc)
    started = time.monotonic()
    numbered = list(enumerate(items))
    # One task per split: a list of n items in n slices gives one item to each partition.
    rdd = sc.parallelize(numbered, max(1, len(numbered)))
    stats = rdd.mapPartitions(lambda part: _run_task(spec, part)).collect()
    # Speculative or retried attempts that lost the commit race report too; count the winners.
    by_task = {}
    for s in stats:
        if s["committed"] or s["task"] not in by_task:
            by_task[s["task"]] = s
    tasks = [by_task[i] for i in sorted(by_task)]
    result = JobResult(output, len(numbered), sum(s["in"] for s in tasks), sum(s["out"] for s in tasks),
                       sum(s["rejected"] for s in tasks), 0.0, task_stats=tasks)
    succeed = result.rejected <= max_rejects
    result.seconds = time.monotonic() - started
    result.dead_letters = commit.publish(output, len(numbered), result.totals(), succeed)
    if not succeed:
        raise RejectsExceeded(result, max_rejects)
    result.parts = [os.path.join(output, commit.part_name(i)) for i in range(len(numbered))]
    return result


def _common_args(run: str | None, params: Mapping[str, object] | None, extra: Iterable[str]) -> list[str]:
    args = ["--run", run] if run else []
    for k, v in (params or {}).items():
        args += ["--param", f"{k}={v}"]
    return args + list(extra)


def run_batch(spark, pipeline: str, inputs, output: str, *, reform: str, run: str | None = None,
              params: Mapping[str, object] | None = None, split_bytes: int = DEFAULT_SPLIT_BYTES,
              max_rejects: int = 0, overwrite: bool = False, extra_args: Iterable[str] = ()) -> JobResult:
    """Transforms NDJSON `inputs` ({manager: path or paths}, in the run's manager order) with the
    pipeline's run, one Reform process per byte-range split, into `output`/part-N.ndjson.

    The parts, concatenated in order, are byte for byte what one `reform run` over the whole
    files writes. Fails (`RejectsExceeded`, nothing published) when more than `max_rejects`
    records were rejected; the rejected records are in `output`/_dead-letters/ either way.
    """
    splits = plan_splits(inputs, split_bytes)
    return _run_job(spark, reform, pipeline, output, splits, _common_args(run, params, extra_args), max_rejects,
                    overwrite)


def run_fanout(spark, pipeline: str, output: str, *, reform: str, shards: int, run: str | None = None,
               params: Mapping[str, object] | None = None, live: bool = True, state_folder: str | None = None,
               max_rejects: int = 0, overwrite: bool = False, extra_args: Iterable[str] = ()) -> JobResult:
    """Fetches a pipeline's fan-out across `shards` tasks (`--shard i/N`): each task runs its
    contiguous block of the last level's partitions. The parts, concatenated in order, are one
    run's output. `state_folder` gives each shard its own state file (`shard-I-of-N.json`)."""
    if shards < 1:
        raise ValueError(f"shards {shards} must be at least 1")
    if state_folder:
        os.makedirs(state_folder, exist_ok=True)
    items = [Shard(i, shards, os.path.join(os.path.abspath(state_folder), f"shard-{i}-of-{shards}.json")
                   if state_folder else None) for i in range(shards)]
    common = _common_args(run, params, extra_args) + (["--live"] if live else [])
    return _run_job(spark, reform, pipeline, output, items, common, max_rejects, overwrite)
