"""Byte-range splits of NDJSON inputs, planned on the driver.

Reform reads `--input MANAGER=PATH@START:END` with Hadoop's split rule (a record belongs to the
split in which its line starts), so ranges that cover a file end to end give, concatenated in
order, exactly the records of one run over the whole file. The planner only needs file sizes.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

#: Default split size: 256 MiB. A task costs tens of milliseconds outside Reform (scheduling,
#: process start, commit) and Reform reads ~265 MB/s per core: a 64 MiB split would spend up
#: to a third of its time on that (docs/speed.md, "Spark stage").
DEFAULT_SPLIT_BYTES = 256 << 20


@dataclass(frozen=True)
class Split:
    """One task's share of the job: a byte range of one manager's input file."""

    index: int
    manager: str
    path: str
    start: int
    end: int

    @property
    def input_argument(self) -> str:
        """The `--input` value that reads this split."""
        return f"{self.manager}={self.path}@{self.start}:{self.end}"

    def reform_args(self) -> list[str]:
        """The arguments that make one Reform run read this split."""
        return ["--input", self.input_argument]

    def describe(self) -> str:
        """`manager=path@start:end`, for messages."""
        return self.input_argument


def _files(path: str) -> list[str]:
    """A file, or the input files of a folder in name order (hidden files left out), as Reform does."""
    if os.path.isdir(path):
        names = sorted(n for n in os.listdir(path)
                       if not n.startswith((".", "_")) and n.endswith((".ndjson", ".jsonl")))
        if not names:
            raise ValueError(f"the folder {path} holds no .ndjson or .jsonl files")
        return [os.path.join(path, n) for n in names]
    if not os.path.isfile(path):
        raise ValueError(f"{path} is not a file or folder (inputs must be on a file system every executor sees)")
    if not path.endswith((".ndjson", ".jsonl")):
        raise ValueError(f"{path}: byte ranges need an uncompressed .ndjson or .jsonl file")
    return [path]


def plan_splits(inputs: Mapping[str, str | Sequence[str]] | Iterable[tuple[str, str]],
                split_bytes: int = DEFAULT_SPLIT_BYTES) -> list[Split]:
    """Cuts every input file into ranges of at most `split_bytes`, in the order given.

    `inputs` maps a manager to a path (or a list of paths; a folder stands for its files in name
    order). Give managers in the order the pipeline's run lists them: the splits' outputs,
    concatenated in split order, are then byte for byte one Reform run's output.
    """
    if split_bytes < 1:
        raise ValueError(f"split_bytes {split_bytes} must be at least 1")
    pairs = list(inputs.items()) if isinstance(inputs, Mapping) else list(inputs)
    splits: list[Split] = []
    for manager, paths in pairs:
        for given in ([paths] if isinstance(paths, str) else list(paths)):
            for path in _files(os.path.abspath(given)):
                size = os.path.getsize(path)
                start = 0
                while start < size or (size == 0 and start == 0):
                    end = min(size, start + split_bytes)
                    splits.append(Split(len(splits), manager, path, start, end))
                    if size == 0:
                        break
                    start = end
    return splits
