#!/usr/bin/env python3
"""HO-ABI-3, HO-ABI-6: no public header declares a C enum type or uses bool.

Anonymous `enum { ... };` blocks of constants are allowed (HO-ABI-4): they
declare no type. Comments are ignored. Usage: check_headers.py INCLUDE_DIR
"""
import os
import re
import sys


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def problems(path):
    code = strip_comments(open(path, encoding="utf-8").read())
    found = []
    for n, line in enumerate(code.splitlines(), 1):
        # "enum" followed by a tag, or used in a typedef / declaration: a type.
        if re.search(r"\benum\s+\w+", line) or re.search(r"\btypedef\s+enum\b", line):
            found.append("%s:%d: enum type: %s" % (path, n, line.strip()))
        if re.search(r"\b(bool|_Bool)\b", line) or "stdbool.h" in line:
            found.append("%s:%d: bool: %s" % (path, n, line.strip()))
    # An anonymous enum must end with "};" (no declarator: not a type in use).
    for m in re.finditer(r"\benum\s*\{[^}]*\}\s*([^;\s][^;]*)?;", code):
        if m.group(1):
            n = code.count("\n", 0, m.start()) + 1
            found.append("%s:%d: enum used as a type: %s" % (path, n, m.group(1).strip()))
    return found


def main():
    include = sys.argv[1]
    headers = sorted(os.path.join(include, f) for f in os.listdir(include) if f.endswith(".h"))
    if not headers:
        print("check_headers: no header in %s" % include)
        return 1
    found = [p for h in headers for p in problems(h)]
    for p in found:
        print(p)
    print("check_headers: %d headers, %d problems" % (len(headers), len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
