#!/usr/bin/python3
"""The layers of the tree (docs/architecture.md): what each folder's C code may
include, and that core/ builds from core/ and include/ alone.

  include/hurray/   the public headers: every layer may use them
  core/proven/      the proven core: its own files only (pure, no runtime)
  core/runtime/     the rest of libhurray: core/ and include/
  ipc/, net/        the transports: core/, include/ and their own folder
  plugins/          one shared object per backend: plugins/common/, include/
                    (PL-BUILD-2 narrows which public headers: check_plugin_sources.py)

A quoted #include is resolved as the compiler does (the including file's
folder first, then include/); it must land in a folder the layer may use.
core/meson.build must name no source outside core/.
Usage: check_layers.py SOURCE_ROOT"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
MAY_USE = {
    "core/proven": ["core/proven", "include/hurray"],
    "core/runtime": ["core", "include/hurray"],
    "ipc": ["ipc", "core", "include/hurray"],
    "net": ["net", "core", "include/hurray"],
    "plugins": ["plugins", "include/hurray"],
}


def inside(path, folder):
    return path == folder or path.startswith(folder + "/")


def main():
    root = os.path.abspath(sys.argv[1])
    failures = []
    with open(os.path.join(root, "core", "meson.build"), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            for source in re.findall(r"'(\.\./[^']+\.c)'", line.split("#")[0]):
                failures.append("core/meson.build:%d: builds %s, outside core/ (core/ builds "
                                "from core/ and include/ alone)" % (number, source))
    checked = 0
    for layer, allowed in MAY_USE.items():
        for folder, _, files in os.walk(os.path.join(root, layer)):
            for name in sorted(files):
                if not name.endswith((".c", ".h", ".m")):
                    continue
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        checked += 1
                        target = None
                        for base in (folder, os.path.join(root, "include")):
                            candidate = os.path.normpath(os.path.join(base, m.group(1)))
                            if os.path.exists(candidate):
                                target = os.path.relpath(candidate, root)
                                break
                        if target is None:
                            continue  # a generated header of the build folder
                        if not any(inside(target, a) for a in allowed):
                            failures.append("%s:%d: includes %s; %s/ may use only %s" %
                                            (relative, number, target, layer,
                                             ", ".join(a + "/" for a in allowed)))
    for failure in failures:
        print("check_layers: FAIL: " + failure)
    print("check_layers: %d quoted includes of %s checked, %d outside their layer" %
          (checked, ", ".join(MAY_USE), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
