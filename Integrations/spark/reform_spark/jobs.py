"""Reform as a Spark stage: one Reform process per task, over a byte range or a shard."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

from . import commit
from .pipelines import RunShape, read_run
from .shipping import ShippedReform, ship_package, ship_reform
from .splits import DEFAULT_SPLIT_BYTES, Split, plan_splits

#: Passed to every task: the job, not a task, applies the rejects policy.
_NO_TASK_LIMIT = str(2**62)


@dataclass(frozen=True)
class Shard:
    """One task's share of a fan-out: `--shard INDEX/COUNT`, with its own state file if any
    (`state`: where the shard's committed state is kept between jobs)."""

    index: int
    count: int
    state: str | None = None

    def reform_args(self) -> list[str]:
        """The arguments that make one Reform run fetch this shard."""
        return ["--shard", f"{self.index}/{self.count}"]

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
    #: Managers that land in every shard to make its partitions (counted in shard 0 only).
    parents: tuple[str, ...] = ()
    #: Partitions listed once for the job: (child manager, its partition file's lines), given to
    #: every shard with `--partitions`, so that no shard fetches the parent level.
    partitions: tuple[tuple[str, bytes], ...] = ()


def _reform_command(reform: str, spec: _TaskSpec, item: Split | Shard, folder: str) -> list[str]:
    """The `reform run` of one attempt, writing into its folder.

    A shard's output goes to standard output (its part): Reform keeps its incremental bookmarks
    for a run whose outputs are not files, where a state describing another file (the part of an
    earlier job) would start the fetch again from nothing. It works on a copy of the shard's
    committed state, which goes with the part and is put in place when the job publishes."""
    command = [reform, "run", spec.pipeline, *spec.common, "--format", "ndjson", "--quiet",
               "--dead-letter", os.path.join(folder, "dead.ndjson"), "--stats-file", os.path.join(folder, "stats.json"),
               "--max-rejects", _NO_TASK_LIMIT, *item.reform_args()]
    if not isinstance(item, Shard):
        return command + ["--output", os.path.join(folder, "part.ndjson")]
    # Without a state folder the attempt's state starts empty and is dropped with it (every job
    # fetches everything), rather than Reform keeping one beside the pipeline that a retried
    # attempt would resume past what its failed attempt fetched.
    local = os.path.join(folder, commit.STATE_NAME)
    if item.state and os.path.exists(item.state):
        shutil.copy2(item.state, local)
    for child, lines in spec.partitions:
        path = os.path.join(folder, f"partitions-{child}.ndjson")
        with open(path, "wb") as f:
            f.write(lines)
        command += ["--partitions", f"{child}={path}"]
    return command + ["--state", local]


def _run_task(spec: _TaskSpec, items: Iterator[tuple[int, Split | Shard]]) -> Iterator[dict]:
    """Runs Reform for each task item of a Spark partition and commits its attempt."""
    from pyspark import TaskContext

    context = TaskContext.get()
    attempt = context.attemptNumber() if context else 0
    reform, env = spec.shipped.locate()
    for index, item in items:
        folder = commit.attempt_folder(spec.output, index, attempt)
        stats_path = os.path.join(folder, "stats.json")
        command = _reform_command(reform, spec, item, folder)
        started = time.monotonic()
        # A shard writes its part on standard output; a split's Reform writes it itself (`--output`).
        with open(os.path.join(folder, "part.ndjson"), "wb") if isinstance(item, Shard) else open(os.devnull, "wb") as out:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE, env=env)
        if done.returncode != 0:
            # A damaged input or failed fetch fails the task: Spark retries it, then fails the job.
            raise RuntimeError(f"reform exited {done.returncode} on task {index} ({item.describe()}): "
                               + done.stderr.decode("utf-8", "replace").strip()[-2000:])
        with open(stats_path) as f:
            stats = json.load(f)
        committed = commit.commit_attempt(spec.output, index, folder)
        parents_in = sum(m["records"] for m in stats.get("managers", []) if m.get("name") in spec.parents)
        yield {"task": index, "what": item.describe(), "attempt": attempt, "committed": committed,
               "in": stats["in"], "out": stats["out"], "rejected": stats["rejected"], "parents_in": parents_in,
               "seconds": time.monotonic() - started, "reform_seconds": stats["seconds"],
               "peak_rss_bytes": stats.get("peak_rss_bytes", 0)}


@dataclass(frozen=True)
class _Listing:
    """The partitions of one child listed for a job (`reform run --list-partitions`)."""

    child: str
    #: The partition file: one JSON object of the child's parameters a line.
    lines: bytes
    #: Records landed per parent manager, in landing order.
    landed: tuple[tuple[str, int], ...]
    #: Parent records that made no partition, and their dead-letter entries.
    rejected: int
    dead: bytes


def _list_partitions(sc, shipped: ShippedReform, pipeline: str, common: list[str], children: Sequence[str]) -> list[_Listing]:
    """Lists each child's partitions once, on one executor (the driver may have no Reform)."""
    def run(_):
        import tempfile
        reform, env = shipped.locate()
        found = []
        for child in children:
            with tempfile.TemporaryDirectory(prefix="reform-partitions-") as folder:
                dead, stats = os.path.join(folder, "dead.ndjson"), os.path.join(folder, "stats.json")
                done = subprocess.run([reform, "run", pipeline, *common, "--quiet", "--list-partitions", child,
                                       "--dead-letter", dead, "--stats-file", stats],
                                      stdin=subprocess.DEVNULL, capture_output=True, env=env)
                if done.returncode not in (0, 3):
                    return (f"reform could not list the partitions of '{child}' (exit {done.returncode}): "
                            + done.stderr.decode("utf-8", "replace").strip()[-2000:])
                entries = b""
                if os.path.exists(dead):
                    with open(dead, "rb") as f:
                        entries = f.read()
                with open(stats) as f:
                    counts = json.load(f)
                landed = tuple((m["name"], m["records"]) for m in counts.get("managers", []))
                found.append(_Listing(child, done.stdout, landed, counts["rejected"], entries))
        return found
    found = sc.parallelize([0], 1).map(run).collect()[0]
    if isinstance(found, str):
        raise RuntimeError(found)
    return found


def _inspect_run(sc, shipped: ShippedReform, pipeline: str, run: str | None) -> RunShape:
    """Reads the run's outputs and parent managers with Reform on an executor (the driver may
    have no Reform to run: the bundle is for the executors), before any task writes."""
    found = sc.parallelize([0], 1).map(lambda _: read_run(shipped, pipeline, run)).collect()[0]
    if isinstance(found, str):
        raise ValueError(found)
    return found


def _run_job(spark, reform: str, pipeline: str, output: str, items: Sequence[Split | Shard], common: list[str],
             max_rejects: int, overwrite: bool, run: str | None) -> JobResult:
    sc = spark.sparkContext
    output = os.path.abspath(output)
    pipeline = os.path.abspath(pipeline)
    shipped = ship_reform(sc, reform)
    ship_package(sc)
    shape = _inspect_run(sc, shipped, pipeline, run)
    shape.refuse_shared_outputs()
    commit.prepare_output(output, overwrite)
    sharded = any(isinstance(item, Shard) for item in items)
    # The parent level is fetched once, on one executor, and its partitions given to every shard
    # (an incremental parent's records depend on each shard's state: each shard lands it then).
    listings = (_list_partitions(sc, shipped, pipeline, common, shape.children)
                if sharded and shape.children and not shape.incremental_parents else [])
    spec = _TaskSpec(shipped, pipeline, output, tuple(common), tuple(shape.parents) if sharded else (),
                     tuple((listing.child, listing.lines) for listing in listings))
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
    # Parents land in every shard to make its partitions: one run lands them once (shard 0's).
    # Listed once for the job, they land in no shard, and count once (a parent the run lists
    # itself lands in shard 0 too, for its output, and is counted there).
    records_in = sum(s["in"] for s in tasks) - sum(s["parents_in"] for s in tasks if s["task"] > 0)
    listed_parents = {}
    for listing in listings:
        listed_parents.update({name: count for name, count in listing.landed if name not in shape.managers})
    records_in += sum(listed_parents.values())
    rejected = sum(s["rejected"] for s in tasks) + sum(listing.rejected for listing in listings)
    result = JobResult(output, len(numbered), records_in, sum(s["out"] for s in tasks), rejected, 0.0, task_stats=tasks)
    succeed = result.rejected <= max_rejects
    result.seconds = time.monotonic() - started
    states = [item.state if isinstance(item, Shard) else None for item in items]
    result.dead_letters = commit.publish(output, len(numbered), result.totals(), succeed, states,
                                         {f"partitions-{listing.child}.ndjson": listing.dead for listing in listings})
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
    """Transforms `inputs` ({manager: path or paths}, in the run's manager order; a folder
    stands for the files one `reform run` of it reads) with the pipeline's run, one Reform
    process per byte-range split (per file for `.gz`, `.json` and `.yaml`), into
    `output`/part-N.ndjson. A run whose output goes to a file or a table is refused
    (`ValueError`) before any task starts.

    The parts, concatenated in order, are byte for byte what one `reform run` over the whole
    files writes. Fails (`RejectsExceeded`, nothing published) when more than `max_rejects`
    records were rejected; the rejected records are in `output`/_dead-letters/ either way.
    """
    splits = plan_splits(inputs, split_bytes)
    return _run_job(spark, reform, pipeline, output, splits, _common_args(run, params, extra_args), max_rejects,
                    overwrite, run)


def run_fanout(spark, pipeline: str, output: str, *, reform: str, shards: int, run: str | None = None,
               params: Mapping[str, object] | None = None, live: bool = True, state_folder: str | None = None,
               max_rejects: int = 0, overwrite: bool = False, extra_args: Iterable[str] = ()) -> JobResult:
    """Fetches a pipeline's fan-out across `shards` tasks (`--shard i/N`): each task runs its
    contiguous block of the last level's partitions. The parts, concatenated in order, are one
    run's output.

    `state_folder` keeps each shard's incremental state between jobs (`shard-I-of-N.json`): a
    task runs on a copy of it, and the job puts the copies in place after `_SUCCESS`, so the
    next job fetches only what changed since this one's parts. A job that fails leaves the
    states as they were (its changes are fetched again)."""
    if shards < 1:
        raise ValueError(f"shards {shards} must be at least 1")
    if state_folder:
        state_folder = os.path.abspath(state_folder)
        os.makedirs(state_folder, exist_ok=True)
        _refuse_other_shard_count(state_folder, shards)
    items = [Shard(i, shards, os.path.join(state_folder, _state_name(i, shards)) if state_folder else None)
             for i in range(shards)]
    common = _common_args(run, params, extra_args) + (["--live"] if live else [])
    return _run_job(spark, reform, pipeline, output, items, common, max_rejects, overwrite, run)


def _state_name(index: int, count: int) -> str:
    return f"shard-{index}-of-{count}.json"


def _refuse_other_shard_count(state_folder: str, shards: int) -> None:
    """A shard's bookmarks describe its block of partitions: states of another shard count
    would be left behind while every partition is fetched again from nothing."""
    counts = sorted({int(m.group(1)) for m in (re.fullmatch(r"shard-\d+-of-(\d+)\.json", n)
                                                for n in os.listdir(state_folder)) if m})
    other = [c for c in counts if c != shards]
    if other:
        raise ValueError(f"{state_folder} holds the states of a fan-out in {other[0]} shards, and this job has {shards}: "
                         f"a shard's bookmarks describe its own block of partitions. Run with shards={other[0]}, or "
                         "empty the folder to fetch everything again in the new number of shards")
