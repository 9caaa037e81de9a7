"""What a job needs to know of the pipeline's run before any task starts: where its outputs go
(each task must write its own part) and which managers are parents of a fan-out (they land in
every shard). Read with `reform cat --to json PIPELINE` on an executor, which has Reform."""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field

from .shipping import ShippedReform


@dataclass(frozen=True)
class RunShape:
    """One run of a pipeline as a job sees it."""

    pipeline: str
    run: str
    #: Per output (1-based): where it goes when not to standard output (`path: …`, `sqlite: …`).
    destinations: dict[int, str] = field(default_factory=dict)
    #: Managers another manager's `for_each` takes partitions from.
    parents: tuple[str, ...] = ()
    #: The run's own managers, in order.
    managers: tuple[str, ...] = ()
    #: The last level of the run's parent → child fan-outs: the managers whose partitions a
    #: shard splits, listed once on an executor (`--list-partitions`) and given to every shard.
    children: tuple[str, ...] = ()
    #: Whether a parent of those children is incremental: its records then depend on each
    #: shard's own state, so each shard lands it (the partitions are not listed once).
    incremental_parents: bool = False

    def refuse_shared_outputs(self) -> None:
        """Raises `ValueError` when an output goes to a file or table of its own: every task
        would write that same file or table (each replacing the one before), not its part."""
        if not self.destinations:
            return
        index, where = next(iter(self.destinations.items()))
        raise ValueError(
            f"run '{self.run}' of {self.pipeline} writes output {index} to {where}: every task of the job would write "
            "that same place, each replacing the share of the one before. reform_spark writes each task's records "
            "to its own part (OUT/part-N.ndjson) from the run's standard output: use a run with one output and no "
            "path:, sqlite: or postgres:, and load the parts afterwards")


def _destination(output: dict) -> str | None:
    if "sqlite" in output or "postgres" in output:
        engine = "sqlite" if "sqlite" in output else "postgres"
        where = output["sqlite"] if engine == "sqlite" else "a PostgreSQL database"
        return f"the table '{output.get('table', '?')}' of {where} ({engine}:)"
    if "path" in output:
        return f"the file {output['path']} (path:)"
    return None


def shape_of(document: dict, pipeline: str, run: str | None) -> RunShape:
    """The shape of `run` (the `default` run, else the first, as Reform picks) in a pipeline
    document; `ValueError` when there is no such run."""
    runs = document.get("runs") or {}
    if run is not None and run not in runs:
        raise ValueError(f"no run called '{run}' in {pipeline} (its runs: {', '.join(runs) or 'none'})")
    name = run if run is not None else ("default" if "default" in runs or not runs else next(iter(runs)))
    plan = runs.get(name) or {}
    outputs = plan.get("outputs") or [plan.get("output") or {}]
    destinations = {}
    for index, output in enumerate(outputs, start=1):
        where = _destination(output) if isinstance(output, dict) else None
        if where:
            destinations[index] = where
    managers = document.get("managers") or {}
    parents = sorted({m["for_each"]["manager"] for m in managers.values()
                      if isinstance(m, dict) and isinstance(m.get("for_each"), dict) and "manager" in m["for_each"]})
    listed = [m for m in (plan.get("managers") or []) if isinstance(m, str)]

    def parent_of(name: str) -> str | None:
        manager = managers.get(name)
        for_each = manager.get("for_each") if isinstance(manager, dict) else None
        return for_each.get("manager") if isinstance(for_each, dict) else None

    fanned = [m for m in listed if parent_of(m)]
    children = [m for m in fanned if not any(parent_of(other) == m for other in fanned)]
    ancestors, incremental = set(), False
    for child in children:
        parent = parent_of(child)
        while parent and parent not in ancestors:
            ancestors.add(parent)
            manager = managers.get(parent)
            incremental = incremental or (isinstance(manager, dict) and "incremental" in manager)
            parent = parent_of(parent)
    return RunShape(pipeline, name, destinations, tuple(parents), tuple(listed), tuple(children), incremental)


def read_run(shipped: ShippedReform, pipeline: str, run: str | None) -> RunShape | str:
    """On an executor: the run's shape, or a message saying why the pipeline cannot be read."""
    reform, env = shipped.locate()
    done = subprocess.run([reform, "cat", "--to", "json", pipeline], stdin=subprocess.DEVNULL, capture_output=True,
                          env=env)
    if done.returncode != 0:
        return f"cannot read the pipeline {pipeline}: " + done.stderr.decode("utf-8", "replace").strip()[-2000:]
    try:
        return shape_of(json.loads(done.stdout), pipeline, run)
    except ValueError as error:
        return str(error)
