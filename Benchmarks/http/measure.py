#!/usr/bin/env python3
"""Runs a command and writes `WALL_SECONDS MAXRSS_KB` to RESULT_FILE: run.sh's timer when GNU time
is missing (or TIMER=python). The command's stdin, stdout and stderr pass through.

    python3 measure.py RESULT_FILE -- CMD [ARGS...]
"""
import resource
import subprocess
import sys
import time


def main():
    result, args = sys.argv[1], sys.argv[2:]
    if args and args[0] == "--":
        args = args[1:]
    start = time.perf_counter()
    rc = subprocess.call(args)
    wall = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    with open(result, "w") as f:
        f.write(f"{wall:.6f} {rss}\n")
    sys.exit(rc)


if __name__ == "__main__":
    main()
