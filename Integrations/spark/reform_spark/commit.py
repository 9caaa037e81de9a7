"""The output protocol: task attempts write in hidden folders, committed by rename; the job
publishes the parts and writes `_SUCCESS` last.

    OUT/_temporary/TASK-attemptN-XXXX/   an attempt writing (Reform's own files are atomic too)
    OUT/_tasks/TASK/                     the one committed attempt of a task (rename: first wins)
    OUT/part-TASK.ndjson                 published by the driver once every task committed
    OUT/_dead-letters/part-TASK.ndjson   the rejected records of that task (only when any)
    OUT/_SUCCESS                         the job's totals as JSON, once every part is in place
    STATE_FOLDER/shard-I-of-N.json       a fan-out shard's incremental state, put in place last

A retried or speculative attempt of a task that already committed finds `_tasks/TASK` taken and
drops its own folder, so no part is ever duplicated; Reform's output per split is deterministic,
so which attempt wins does not change a byte. Readers skip names starting with `_` and `.`.
"""
from __future__ import annotations

import json
import os
import shutil
import uuid
from typing import Mapping, Sequence

#: A shard attempt's copy of its incremental state, in its attempt folder.
STATE_NAME = "state.json"


def part_name(index: int) -> str:
    """`part-00003.ndjson`."""
    return f"part-{index:05d}.ndjson"


def attempt_folder(output: str, index: int, attempt: int) -> str:
    """A fresh hidden folder for one attempt of task `index`."""
    folder = os.path.join(output, "_temporary", f"{index:05d}-attempt{attempt}-{uuid.uuid4().hex[:8]}")
    os.makedirs(folder)
    return folder


def commit_attempt(output: str, index: int, folder: str) -> bool:
    """Commits an attempt's folder as task `index`'s result; `False` when another attempt
    committed first (this one's folder is then removed)."""
    tasks = os.path.join(output, "_tasks")
    os.makedirs(tasks, exist_ok=True)
    target = os.path.join(tasks, f"{index:05d}")
    try:
        os.rename(folder, target)  # fails when the target exists and is not empty
        return True
    except OSError:
        if not os.path.isdir(target):
            raise
        shutil.rmtree(folder, ignore_errors=True)
        return False


def prepare_output(output: str, overwrite: bool) -> None:
    """Makes `output` ready for a job: refuses a folder holding a finished job's parts unless
    `overwrite`; removes what a failed job left."""
    if os.path.exists(output):
        existing = [n for n in os.listdir(output) if not n.startswith(".")]
        published = [n for n in existing if not n.startswith("_")] + (["_SUCCESS"] if "_SUCCESS" in existing else [])
        if published and not overwrite:
            raise FileExistsError(f"{output} already holds a job's output ({', '.join(sorted(published)[:3])}…); "
                                  "pass overwrite=True or choose another folder")
        for name in existing:
            path = os.path.join(output, name)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    os.makedirs(output, exist_ok=True)


def publish(output: str, count: int, totals: dict, succeed: bool,
            states: Sequence[str | None] | None = None, extra_dead_letters: Mapping[str, bytes] | None = None) -> list[str]:
    """Moves every committed task's dead letters to `_dead-letters/`, and when `succeed` its part
    to `OUT/part-N.ndjson`, then writes `_SUCCESS`, then puts each task's incremental state in
    place (`states[i]`: where task i's state is kept between jobs). `extra_dead_letters` (file name →
    entries) are dead letters of the job's own steps (the parents' records that made no partition).
    Returns the dead-letter files.

    The states go last: a driver that dies before they are in place leaves the old ones, and the
    next job fetches those changes again rather than losing them."""
    tasks = os.path.join(output, "_tasks")
    missing = [i for i in range(count) if not os.path.isdir(os.path.join(tasks, f"{i:05d}"))]
    if missing:
        raise RuntimeError(f"tasks {missing[:5]} of {count} never committed their output; the job's output is incomplete")
    dead_letters = []
    for i in range(count):
        folder = os.path.join(tasks, f"{i:05d}")
        dead = os.path.join(folder, "dead.ndjson")
        if os.path.exists(dead):
            os.makedirs(os.path.join(output, "_dead-letters"), exist_ok=True)
            target = os.path.join(output, "_dead-letters", part_name(i))
            os.rename(dead, target)
            dead_letters.append(target)
    for name, entries in (extra_dead_letters or {}).items():
        if entries:
            os.makedirs(os.path.join(output, "_dead-letters"), exist_ok=True)
            target = os.path.join(output, "_dead-letters", name)
            with open(target, "wb") as f:
                f.write(entries)
            dead_letters.append(target)
    if succeed:
        for i in range(count):
            os.rename(os.path.join(tasks, f"{i:05d}", "part.ndjson"), os.path.join(output, part_name(i)))
        with open(os.path.join(output, "_SUCCESS"), "w") as f:
            json.dump(totals, f)
            f.write("\n")
        for i, target in enumerate(states or []):
            saved = os.path.join(tasks, f"{i:05d}", STATE_NAME)
            if target and os.path.exists(saved):
                _put_in_place(saved, target)
    shutil.rmtree(tasks, ignore_errors=True)
    shutil.rmtree(os.path.join(output, "_temporary"), ignore_errors=True)
    return dead_letters


def _put_in_place(source: str, target: str) -> None:
    """Replaces `target` with `source` atomically, also across file systems (copied beside the
    target, synced, renamed)."""
    staging = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.{uuid.uuid4().hex[:8]}")
    try:
        shutil.copy2(source, staging)
        with open(staging, "rb") as f:
            os.fsync(f.fileno())
        os.replace(staging, target)
    except OSError as error:
        if os.path.exists(staging):
            os.remove(staging)
        raise RuntimeError(f"the job's output is complete, but the incremental state {target} could not be saved "
                           f"({error}): the next job fetches this job's changes again") from error
