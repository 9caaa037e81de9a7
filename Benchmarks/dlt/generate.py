#!/usr/bin/env python3
"""Writes N GitHub-like issue records as NDJSON, deterministically.

    python3 generate.py N OUT.ndjson [SEED]

Each line is one issue:

    {"id": 1000000001, "number": 1, "title": "...", "state": "open",
     "user": {"login": "octo-cat42", "id": 5123},
     "labels": [{"id": 101, "name": "bug", "color": "d73a4a"}, ...],   # 0 to 4 labels
     "comments": 3, "created_at": "2019-04-02T10:11:12Z", "updated_at": "2019-05-01T08:00:00Z",
     "body": "..." }                                                   # 50-300 characters, or null

ids are unique; label ids, names and colours come from one fixed set, so a label is always the same
object. Text mixes ASCII with a little accented and CJK text, quotes, backslashes, tabs and line
breaks (never NUL, which PostgreSQL text cannot hold), so loaders have to escape it.
"""
import json
import random
import sys
import time

dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

WORDS = [
    "crash", "when", "loading", "large", "file", "the", "parser", "fails", "on", "empty", "input",
    "add", "support", "for", "retry", "timeout", "docs", "typo", "in", "README", "memory", "leak",
    "after", "upgrade", "to", "v2", "slow", "query", "with", "many", "rows", "flaky", "test",
    "Windows", "build", "broken", "unicode", "names", "are", "mangled", "feature", "request",
    "option", "config", "ignored", "regression", "since", "release", "panic", "nil", "pointer",
]
ODD = ['"quoted"', "back\\slash", "tab\there", "naïve café", "中文标题", "emoji 🐛", "it's", "50%", "<b>x</b>"]
LABELS = [
    (101, "bug", "d73a4a"), (102, "documentation", "0075ca"), (103, "duplicate", "cfd3d7"),
    (104, "enhancement", "a2eeef"), (105, "good first issue", "7057ff"), (106, "help wanted", "008672"),
    (107, "invalid", "e4e669"), (108, "question", "d876e3"), (109, "wontfix", "ffffff"),
    (110, "performance", "fbca04"), (111, "regression", "b60205"), (112, "área: núcleo", "1d76db"),
]
USERS = [("user%d" % i, 1000 + i) for i in range(2000)] + [("octo-cat", 583231), ("dev_ünïcode", 77)]


def text(rng, low, high):
    parts, size = [], 0
    target = rng.randint(low, high)
    while size < target:
        word = rng.choice(ODD) if rng.random() < 0.04 else rng.choice(WORDS)
        parts.append(word)
        size += len(word) + 1
    out = " ".join(parts)
    if rng.random() < 0.2:
        out = out.replace(" ", "\n", 1)
    return out[:target] if len(out) > target else out


def stamp(seconds):
    # 2015-01-01T00:00:00Z plus seconds.
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1420070400 + seconds))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    n, path = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) == 4 else 7)
    span = 9 * 365 * 86400
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            created = rng.randrange(span)
            login, user_id = rng.choice(USERS)
            labels = [{"id": l[0], "name": l[1], "color": l[2]} for l in rng.sample(LABELS, rng.randint(0, 4))]
            issue = {
                "id": 1_000_000_000 + i * 3 + rng.randint(0, 2),
                "number": i + 1,
                "title": text(rng, 10, 80),
                "state": "closed" if rng.random() < 0.6 else "open",
                "user": {"login": login, "id": user_id},
                "labels": labels,
                "comments": rng.randint(0, 40),
                "created_at": stamp(created),
                "updated_at": stamp(created + rng.randrange(90 * 86400)),
                "body": None if rng.random() < 0.15 else text(rng, 50, 300),
            }
            out.write(dumps(issue))
            out.write("\n")


if __name__ == "__main__":
    main()
