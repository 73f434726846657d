#!/usr/bin/python3
"""Prints the coverage of `llvm-cov export -summary-only` per file and per
folder, and with --check fails when a file or folder of fuzz/coverage-thresholds
is below its floor (fuzz/coverage, docs/fuzzing.md).

Usage: coverage_report.py SUMMARY.json SOURCE_ROOT [--check THRESHOLDS]

THRESHOLDS: one rule a line, `PATH LINES BRANCHES [reason]`, where PATH is a
file or a folder (ending in /: the totals of the files under it), LINES and
BRANCHES are the lowest percentages allowed, `-` for no floor; # starts a
comment. Standard library only.
SPDX-License-Identifier: Apache-2.0
"""
import json
import os
import sys


def load(summary, root):
    with open(summary, encoding="utf-8") as f:
        data = json.load(f)
    files = {}
    for entry in data["data"][0]["files"]:
        path = os.path.relpath(entry["filename"], root)
        s = entry["summary"]
        files[path] = (s["lines"]["covered"], s["lines"]["count"],
                       s["branches"]["covered"], s["branches"]["count"])
    return files


def percent(covered, count):
    return 100.0 * covered / count if count else 100.0


def totals(files, folder):
    t = [0, 0, 0, 0]
    for path, v in files.items():
        if path.startswith(folder):
            t = [a + b for a, b in zip(t, v)]
    return tuple(t)


def row(name, v):
    return "%-44s %6d/%-6d %6.1f%%   %6d/%-6d %6.1f%%" % (
        name, v[0], v[1], percent(v[0], v[1]), v[2], v[3], percent(v[2], v[3]))


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--check"):
        print(__doc__, file=sys.stderr)
        return 2
    files = load(argv[1], argv[2])
    print("%-44s %21s   %21s" % ("file", "lines", "branches"))
    for path in sorted(files):
        print(row(path, files[path]))
    folders = sorted({os.path.dirname(p) + "/" for p in files})
    print()
    for folder in folders:
        print(row(folder, totals(files, folder)))
    print(row("all", totals(files, "")))
    if len(argv) != 5:
        return 0
    failed = []
    with open(argv[4], encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            path, floors = fields[0], fields[1:3]
            if path.endswith("/"):
                v = totals(files, path)
            elif path in files:
                v = files[path]
            else:
                failed.append("%s (line %d): not in the report" % (path, number))
                continue
            for (covered, count), floor, kind in zip(((v[0], v[1]), (v[2], v[3])), floors,
                                                     ("lines", "branches")):
                if floor != "-" and percent(covered, count) < float(floor):
                    failed.append("%s: %s %.1f%% below its floor of %s%%" % (
                        path, kind, percent(covered, count), floor))
    print()
    if failed:
        print("coverage below the floors of %s:" % argv[4])
        for f in failed:
            print("  " + f)
        return 1
    print("coverage: every file and folder of %s at or above its floor" % argv[4])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
