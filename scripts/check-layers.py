#!/usr/bin/env python3
"""Checks the engine's layer order: no folder of Sources/ReformEngine names a type declared on a
higher floor, except the references scripts/layers-baseline.txt lists (each a known misplacement,
to be moved). Fails, naming file and type, on a new upward reference, and on a listed one that is
gone (so the list only shrinks: delete its line).

The floors are read from the "Layers" block of docs/layout.md, the one place they are written.
A folder may name types of its own floor and the floors below. References are found by name: the
capitalised words of each file, outside comments and string literals, that are types declared at
the top level of another folder.

    scripts/check-layers.py            # run by .ci/run
    scripts/check-layers.py --print    # today's upward references, in the baseline's form
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ENGINE = os.path.join(ROOT, "Sources", "ReformEngine")
LAYOUT = os.path.join(ROOT, "docs", "layout.md")
BASELINE = os.path.join(ROOT, "scripts", "layers-baseline.txt")

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*"
    r"(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)",
    re.M,
)


def floors():
    """The floors, bottom first, from the block after '<!-- layers -->' in docs/layout.md."""
    text = open(LAYOUT, encoding="utf-8").read()
    start = text.find("<!-- layers -->")
    if start < 0:
        sys.exit("docs/layout.md has no '<!-- layers -->' block")
    block = text[start:].split("```")[1]
    found = []
    for line in block.strip().splitlines():
        name, _, folders = line.partition(":")
        if not folders.strip():
            sys.exit(f"docs/layout.md: a floor line is 'N name: Folder Folder', not {line!r}")
        found.append(folders.split())
    return found


def folder_of(relative):
    return relative.split("/")[0] if "/" in relative else relative


def without_comments_and_strings(text):
    text = re.sub(r'#*"""[\s\S]*?"""#*', '""', text)
    text = re.sub(r"/\*[\s\S]*?\*/", "", text)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'#*"(?:\\.|[^"\\\n])*"#*', '""', text)


def main():
    level = {}
    for index, names in enumerate(floors()):
        for name in names:
            level[name] = index
    sources = {}
    for folder, _, names in os.walk(ENGINE):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(folder, name)
                sources[os.path.relpath(path, ENGINE)] = open(path, encoding="utf-8").read()
    missing = sorted({folder_of(r) for r in sources} - set(level))
    if missing:
        sys.exit(f"docs/layout.md's layers block does not place: {', '.join(missing)} (add each to a floor)")
    owner = {}
    for relative, text in sources.items():
        for match in DECLARATION.finditer(text):
            owner.setdefault(match.group(1), folder_of(relative))
    upward = {}
    for relative, text in sorted(sources.items()):
        here = folder_of(relative)
        for word in sorted(set(re.findall(r"\b[A-Z]\w*\b", without_comments_and_strings(text)))):
            there = owner.get(word)
            if there and level[there] > level[here]:
                upward.setdefault(f"{here} -> {there}: {word}", []).append(relative)
    if "--print" in sys.argv:
        print("\n".join(sorted(upward)))
        return 0
    baseline = set()
    for line in open(BASELINE, encoding="utf-8"):
        line = line.split("#")[0].strip()
        if line:
            baseline.add(line)
    failed = False
    for reference in sorted(set(upward) - baseline):
        failed = True
        files = ", ".join(f"Sources/ReformEngine/{f}" for f in upward[reference])
        print(f"{files}: names a type on a higher floor ({reference}); move it down, or the code up (docs/layout.md, Layers)")
    for reference in sorted(baseline - set(upward)):
        failed = True
        print(f"scripts/layers-baseline.txt: '{reference}' is gone; delete its line")
    if failed:
        return 1
    print(f"layers hold: no upward reference beyond the {len(baseline)} listed in scripts/layers-baseline.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
