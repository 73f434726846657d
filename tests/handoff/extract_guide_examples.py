#!/usr/bin/env python3
"""Concatenates the ```c code blocks of a Markdown guide into one C file, in
order, with #line directives pointing back at the guide, so that the guide's
examples are compiled (and run) by a test and cannot drift from the library.

A block whose first line names a file, "/* acme_host.c: ...", is a whole
program a reader saves under that name: it is left out of the concatenation
and extracted alone with --file NAME.

Usage: extract_guide_examples.py [--file NAME] GUIDE.md OUTPUT.c
"""
import re
import sys

FILE_BLOCK = re.compile(r"^/\* ([A-Za-z0-9_.-]+\.c): ")


def main() -> int:
    args = sys.argv[1:]
    wanted = None
    if len(args) == 4 and args[0] == "--file":
        wanted, args = args[1], args[2:]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    guide, output = args
    blocks = []
    inside = False
    start = 0
    current = []
    with open(guide, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            stripped = line.strip()
            if not inside and stripped == "```c":
                inside, start, current = True, number + 1, []
            elif inside and stripped == "```":
                named = FILE_BLOCK.match(current[0]) if current else None
                if (named.group(1) if named else None) == wanted:
                    blocks.append((start, current))
                inside = False
            elif inside:
                current.append(line)
    if inside:
        print(f"{guide}: unterminated ```c block from line {start}", file=sys.stderr)
        return 1
    if not blocks:
        what = f"a ```c block named {wanted}" if wanted else "```c blocks"
        print(f"{guide}: no {what}", file=sys.stderr)
        return 1
    with open(output, "w", encoding="utf-8") as out:
        out.write(f"/* Generated from {guide} by extract_guide_examples.py. */\n")
        for start, lines in blocks:
            out.write(f'#line {start} "{guide}"\n')
            out.writelines(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
