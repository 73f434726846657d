#!/usr/bin/python3
"""A build that uses the plugin support library's names before 0.1.0 warns,
naming each replacement (include/hurray/plugin_support.h, the end;
docs/vendor-guide.md section 14).

Expects the header to declare exactly the names of RENAMED (below) with
HURRAY_SUPPORT_DEPRECATED("NEW"), each NEW being a name the header
declares; then compiles SOURCE (a translation unit using every old name,
test_support_old_names.c) with -fsyntax-only -Wdeprecated-declarations and
expects, for each old name, the compiler's "'OLD' is deprecated: use NEW"
(GCC and Clang word it alike in the C locale).
Usage: check_support_deprecations.py HEADER SOURCE INCLUDE_DIR CC [CC ARGS...]"""
import os
import re
import subprocess
import sys

# The renames of docs/vendor-guide.md section 14, but the constant (a macro
# cannot be deprecated). Removed in 0.2.0, with this test.
RENAMED = {
    "plugin_fail": "hurray_support_entry_fail",
    "plugin_open_runtime": "hurray_support_open_runtime",
    "plugin_resolve_symbols": "hurray_support_resolve_symbols",
    "plugin_symbol": "hurray_support_symbol",
    "plugin_alignment_of_address": "hurray_support_lowest_set_bit",
    "plugin_alignment_capped": "hurray_support_alignment_capped",
    "plugin_check_device": "hurray_support_check_device",
    "plugin_copy_reason": "hurray_support_copy_reason",
    "plugin_add_memory_class": "hurray_support_add_memory_class",
    "plugin_shared_memory": "hurray_support_shared_memory",
    "plugin_shared_create": "hurray_support_shared_create",
    "plugin_shared_import": "hurray_support_shared_import",
    "plugin_shared_export": "hurray_support_shared_export",
    "plugin_shared_release": "hurray_support_shared_release",
}
# NAME, its parameters if a function, a format attribute, the deprecation.
DEPRECATED = re.compile(r"\b(\w+)\s*(?:\([^;]*?\))?\s*"
                        r"(?:__attribute__\(\(format\([^)]*\)\)\)\s*)?"
                        r"HURRAY_SUPPORT_DEPRECATED\(\"(\w+)\"\)", re.S)


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def main():
    header, source, include = sys.argv[1:4]
    compiler = sys.argv[4:]
    code = strip_comments(open(header, encoding="utf-8").read())
    declared = dict(DEPRECATED.findall(code))
    failures = []
    if declared != RENAMED:
        failures.append("the header's deprecated names differ from the renames expected: %s" %
                        sorted(set(declared.items()) ^ set(RENAMED.items())))
    for old, new in RENAMED.items():
        if not re.search(r"\b%s\s*\(|\}\s*%s\s*;" % (new, new), code):
            failures.append("%s names %s, which the header does not declare" % (old, new))
    run = subprocess.run(compiler + ["-std=c11", "-fsyntax-only", "-Wdeprecated-declarations",
                                     "-I", include, source],
                         capture_output=True, text=True, check=False,
                         env=dict(os.environ, LC_ALL="C"))  # ASCII quotes
    if run.returncode != 0:
        failures.append("compiling %s failed:\n%s" % (source, run.stderr))
    for old, new in RENAMED.items():
        expected = "'%s' is deprecated: use %s" % (old, new)
        if expected not in run.stderr:
            failures.append("no warning \"%s\"" % expected)
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        return 1
    print("PASS: %d deprecated names, each warns naming its replacement: %s" %
          (len(RENAMED), ", ".join(RENAMED)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
