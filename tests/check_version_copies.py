#!/usr/bin/python3
"""The library version is written once, in include/hurray/version.h
(VER-NUM-1); meson.build reads it from there. What still quotes it must say
the same: HURRAY_VERSION_STRING beside the three numbers, the version meson
read (argument 1), and the documents that show today's version. Fails
naming each copy that disagrees.

Usage: check_version_copies.py MESON_VERSION SOURCE_ROOT
Standard library only.
"""
import re
import sys
from pathlib import Path


def header_version(root, problems):
    text = (root / "include/hurray/version.h").read_text(encoding="utf-8")
    numbers = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define HURRAY_VERSION_%s (\d+)$" % part, text, re.M)
        if m is None:
            problems.append("include/hurray/version.h: no HURRAY_VERSION_%s" % part)
            return None
        numbers.append(m.group(1))
    version = ".".join(numbers)
    m = re.search(r'^#define HURRAY_VERSION_STRING "([^"]*)"$', text, re.M)
    if m is None or m.group(1) != version:
        problems.append("include/hurray/version.h: HURRAY_VERSION_STRING is %s, the numbers say %s"
                        % (m.group(1) if m else "missing", version))
    return version


def table_cell(root, path, row_start, column, version, problems):
    """The `column`-th cell (from 0) of the table row beginning row_start."""
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if line.startswith(row_start):
            cell = line.split("|")[column + 1].strip()
            if cell != version:
                problems.append("%s:%d: says %s" % (path, number, cell))
            return
    problems.append("%s: no table row beginning %r" % (path, row_start))


def command_output(root, path, command, version, problems):
    """The ```text block after the block that runs `command` shows only
    `version`, one line per package asked about."""
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    try:
        start = lines.index(command)
        begin = lines.index("```text", start) + 1
        end = lines.index("```", begin)
    except ValueError:
        problems.append("%s: no output shown for %r" % (path, command))
        return
    for number in range(begin, end):
        if lines[number] != version:
            problems.append("%s:%d: says %s" % (path, number + 1, lines[number]))


def main():
    meson_version, root = sys.argv[1], Path(sys.argv[2])
    problems = []
    version = header_version(root, problems)
    if version is not None:
        if meson_version != version:
            problems.append("meson.build read %s from include/hurray/version.h, which says %s"
                            % (meson_version, version))
        table_cell(root, "docs/versioning.md", "| library version (", 1, version, problems)
        table_cell(root, "specs/versioning.md", "| library version MAJOR.MINOR.PATCH |", 2,
                   version, problems)
        command_output(root, "docs/vendor-guide.md",
                       "pkg-config --modversion hurray hurray-plugin-support", version, problems)
    for problem in problems:
        print("version-copies: %s" % problem)
    if problems:
        print("version-copies: FAIL: the library version is %s (include/hurray/version.h)" % version)
        return 1
    print("version-copies: PASS: %s everywhere" % version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
