#!/usr/bin/python3
"""Source rules of the error and alignment code (specs/plugin-abi.md
PL-ERR-1): outside the proven core (core/proven, whose hurray_fail is part
of the proof), the runtime, the IPC code, the Python extension's C code and
every plugin fill a hurray_error only through hurray_support_fail /
hurray_support_vfail and measure an alignment only through
hurray_support_lowest_set_bit, both in core/runtime/support_core.c.

A line that writes err->status (or ->status of a hurray_error named err,
call_err, e, error) or computes a lowest set bit (x & (~x + 1), x & -x,
__builtin_ctz) anywhere else fails the check, unless it carries the marker
"PL-ERR-1: not a fill" (a copy of an error already filled, or the zeroing
of the host's own error before a plugin call, PL-CALL-3).

PL-BUILD-2: every file of an in-tree plugin (plugins/, the support library
in plugins/common/ included) includes of libhurray's headers only
hurray/plugin_vendor.h, hurray/buffer.h and hurray/plugin_support.h: never
hurray/plugin.h or hurray/plugin_host.h (the host API a plugin cannot call,
linking no libhurray, PL-BUILD-1), nor any other.
Usage: check_plugin_sources.py SOURCE_ROOT"""
import os
import re
import sys

SCANNED = ["core/runtime", "ipc", "plugins", "python"]
THE_ONE = os.path.join("core", "runtime", "support_core.c")
FILL = re.compile(r"\b(?:err|call_err|e|error)->status\s*=(?!=)|"
                  r"\b(?:err|call_err|e|error)->detail\s*,\s*sizeof")
LOWEST = re.compile(r"&\s*\(\s*~\s*(\w+)\s*\+\s*1u?\s*\)|&\s*-\s*\(?\w+\)?\s*[;)]|"
                    r"__builtin_ctz|\bffsl?l?\s*\(")
MARKER = "PL-ERR-1: not a fill"
HURRAY_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]hurray/([^">]+)[">]')
VENDOR_HEADERS = {"plugin_vendor.h", "buffer.h", "plugin_support.h"}


def c_sources(root, top):
    """The C and Objective-C sources and headers under root/top, in a stable
    order: (path, path relative to root)."""
    for folder, _, files in os.walk(os.path.join(root, top)):
        for name in sorted(files):
            if name.endswith((".c", ".h", ".m")):
                path = os.path.join(folder, name)
                yield path, os.path.relpath(path, root)


def main():
    root = sys.argv[1]
    failures = []
    for top in SCANNED:
        for path, relative in c_sources(root, top):
            if relative == THE_ONE:
                continue
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    code = line.split("//")[0]
                    included = HURRAY_INCLUDE.match(code)
                    if (top == "plugins" and included and
                            included.group(1) not in VENDOR_HEADERS):
                        failures.append("%s:%d: a plugin includes hurray/%s; only %s "
                                        "(PL-BUILD-2)" %
                                        (relative, number, included.group(1),
                                         ", ".join("hurray/" + h
                                                   for h in sorted(VENDOR_HEADERS))))
                    if MARKER in line:
                        continue
                    if FILL.search(code):
                        failures.append("%s:%d: fills a hurray_error itself (use "
                                        "hurray_support_fail): %s" %
                                        (relative, number, line.strip()))
                    if LOWEST.search(code):
                        failures.append("%s:%d: computes a lowest set bit itself (use "
                                        "hurray_support_lowest_set_bit): %s" %
                                        (relative, number, line.strip()))
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        return 1
    print("PASS: one error-filling and one lowest-set-bit function (%s); plugins include "
          "only the vendor headers" % THE_ONE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
