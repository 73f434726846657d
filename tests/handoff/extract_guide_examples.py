#!/usr/bin/env python3
"""Concatenates the ```c code blocks of a Markdown guide into one C file, in
order, with #line directives pointing back at the guide, so that the guide's
examples are compiled (and run) by a test and cannot drift from the library.

Usage: extract_guide_examples.py GUIDE.md OUTPUT.c
"""
import sys


def main() -> int:
    guide, output = sys.argv[1], sys.argv[2]
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
                blocks.append((start, current))
                inside = False
            elif inside:
                current.append(line)
    if inside:
        print(f"{guide}: unterminated ```c block from line {start}", file=sys.stderr)
        return 1
    if not blocks:
        print(f"{guide}: no ```c blocks", file=sys.stderr)
        return 1
    with open(output, "w", encoding="utf-8") as out:
        out.write(f"/* Generated from {guide} by extract_guide_examples.py. */\n")
        for start, lines in blocks:
            out.write(f'#line {start} "{guide}"\n')
            out.writelines(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
