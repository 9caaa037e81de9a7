"""Byte-range splits of NDJSON inputs, planned on the driver.

Reform reads `--input MANAGER=PATH@START:END` with Hadoop's split rule (a record belongs to the
split in which its line starts), so ranges that cover a file end to end give, concatenated in
order, exactly the records of one run over the whole file. The planner only needs file sizes.

A folder stands for exactly the files one `reform run` of it reads (`InputFiles.expand` in the
engine): every name ending in one of `FOLDER_EXTENSIONS` that does not start with `.`, in name
order (`_`-prefixed names included). Files that cannot be read from the middle — gzip-compressed
(`.gz`), JSON documents (`.json`) and YAML (`.yaml`, `.yml`) — become one whole-file task each.
"""
from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

#: Default split size: 256 MiB. A task costs tens of milliseconds outside Reform (scheduling,
#: process start, commit) and Reform reads ~265 MB/s per core: a 64 MiB split would spend up
#: to a third of its time on that (docs/speed.md, "Spark stage").
DEFAULT_SPLIT_BYTES = 256 << 20

#: The names a folder input reads, as the engine lists them (`InputFiles.extensions`).
FOLDER_EXTENSIONS = (".ndjson", ".jsonl", ".json", ".yaml", ".yml", ".ndjson.gz", ".jsonl.gz", ".json.gz")
#: Files Reform reads as one document, or through gzip: they cannot start mid-file.
WHOLE_FILE_SUFFIXES = (".gz", ".json", ".yaml", ".yml")
#: What Reform reads as a table, not a file (`TableAddress`).
_TABLE_SCHEMES = ("sqlite:", "postgres:", "postgresql:")
_RANGE = re.compile(r"^(?P<path>.+)@(?P<range>[^@/]*)$")


@dataclass(frozen=True)
class Split:
    """One task's share of the job: a byte range of one manager's input file, or the whole file
    when it cannot be read from the middle (`whole`: `.gz`, `.json`, `.yaml`)."""

    index: int
    manager: str
    path: str
    start: int
    end: int
    whole: bool = False

    @property
    def input_argument(self) -> str:
        """The `--input` value that reads this split."""
        if self.whole:
            return f"{self.manager}={self.path}"
        return f"{self.manager}={self.path}@{self.start}:{self.end}"

    def reform_args(self) -> list[str]:
        """The arguments that make one Reform run read this split."""
        return ["--input", self.input_argument]

    def describe(self) -> str:
        """`manager=path@start:end` (`manager=path` for a whole file), for messages."""
        return self.input_argument


def _name_order(name: str) -> str:
    # Swift sorts the folder's names (`FilePaths.contents`) comparing their NFC forms.
    return unicodedata.normalize("NFC", name)


def _folder_files(folder: str) -> list[str]:
    """The files one `reform run` of `folder` reads, in the order it reads them."""
    names = sorted((n for n in os.listdir(folder) if not n.startswith(".") and n.endswith(FOLDER_EXTENSIONS)),
                   key=_name_order)
    if not names:
        raise ValueError(f"the folder {folder} holds no input files ({', '.join(FOLDER_EXTENSIONS)}); "
                         "Reform reads those names in a folder (hidden ones left out)")
    files = [os.path.join(folder, n) for n in names]
    for path in files:
        if not os.path.isfile(path):
            raise ValueError(f"{path} is not a regular file, and Reform reads every {', '.join(FOLDER_EXTENSIONS)} "
                             f"name in the folder {folder}: rename or move it (it would fail the job's tasks)")
    return files


def _given_range(given: str) -> tuple[str, int, int] | None:
    """`(file, start, end)` when `given` is `FILE@START:END` for an existing file (and is not
    itself a file's name); `ValueError` when the part after `@` is not a range Reform reads."""
    match = _RANGE.match(given)
    if not match or os.path.exists(given) or not os.path.isfile(match.group("path")):
        return None
    file, text = match.group("path"), match.group("range")
    numbers = text.split(":")
    if len(numbers) != 2 or not all(re.fullmatch(r"[0-9]+", n) for n in numbers):
        problem = f"'@{text}' is not a byte range (@START:END, two whole numbers, START <= END)"
    elif int(numbers[1]) < int(numbers[0]):
        problem = f"the byte range '@{text}' ends before it starts"
    elif file.endswith(WHOLE_FILE_SUFFIXES):
        raise ValueError(f"{given}: a byte range needs an uncompressed NDJSON file, and {os.path.basename(file)} "
                         f"is read whole: give the file ({file}), which is one task")
    else:
        return file, int(numbers[0]), int(numbers[1])
    raise ValueError(f"{given}: {problem}; reform_spark plans the byte ranges itself: give the file ({file}), "
                     "or a range of it such as @0:1000")


def _check_given(given: str) -> None:
    """Refuses what is not a file or folder every executor can read."""
    if given == "-":
        raise ValueError("standard input ('-') cannot be shared by a job's tasks: write it to a file first")
    if given.startswith(_TABLE_SCHEMES):
        raise ValueError(f"{given} is a table: one Reform process reads a table, there is nothing to split; "
                         "run `reform run --input MANAGER=…` on it directly")


def _whole_file(path: str) -> bool:
    return path.endswith(WHOLE_FILE_SUFFIXES)


def _ranges(start: int, end: int, split_bytes: int) -> list[tuple[int, int]]:
    if start == end:
        return [(start, end)]
    return [(s, min(end, s + split_bytes)) for s in range(start, end, split_bytes)]


def plan_splits(inputs: Mapping[str, str | Sequence[str]] | Iterable[tuple[str, str]],
                split_bytes: int = DEFAULT_SPLIT_BYTES) -> list[Split]:
    """Cuts every input file into ranges of at most `split_bytes`, in the order given.

    `inputs` maps a manager to a path (or a list of paths; a folder stands for the files one
    `reform run` of it reads, in name order; `PATH@START:END` for a range of a file). Give
    managers in the order the pipeline's run lists them: the splits' outputs, concatenated in
    split order, are then byte for byte one Reform run's output. `.gz`, `.json` and `.yaml`
    files are one whole-file split each. Raises `ValueError` naming what cannot be planned.
    """
    if split_bytes < 1:
        raise ValueError(f"split_bytes {split_bytes} must be at least 1")
    pairs = list(inputs.items()) if isinstance(inputs, Mapping) else list(inputs)
    splits: list[Split] = []

    def add(manager: str, path: str, start: int, end: int, whole: bool) -> None:
        splits.append(Split(len(splits), manager, path, start, end, whole))

    for manager, paths in pairs:
        for given in ([paths] if isinstance(paths, str) else list(paths)):
            _check_given(given)
            path = os.path.abspath(given)
            ranged = _given_range(path)
            if ranged:
                file, start, end = ranged
                for s, e in _ranges(start, max(start, min(end, os.stat(file).st_size)), split_bytes):
                    add(manager, file, s, e, False)
                continue
            if os.path.isdir(path):
                files = _folder_files(path)
            elif os.path.isfile(path):
                files = [path]
            elif os.path.exists(path):
                raise ValueError(f"{given} is not a regular file or folder (a pipe or device cannot be split)")
            else:
                raise ValueError(f"{given}: no such file or folder (inputs must be on a file system every executor sees)")
            for file in files:
                size = os.stat(file).st_size
                if _whole_file(file):
                    add(manager, file, 0, size, True)
                    continue
                for s, e in _ranges(0, size, split_bytes):
                    add(manager, file, s, e, False)
    return splits
