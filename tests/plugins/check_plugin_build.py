#!/usr/bin/python3
"""PL-BUILD-1 on the plugins this build made: each hurray-plugin-<name>.so
links only libc (and libdl), not libhurray nor a vendor library, and with
hidden visibility exports exactly one symbol, hurray_plugin_entry (PL-ENTRY-1).
Usage: check_plugin_build.py PLUGINS_BUILD_DIR  (needs readelf, binutils)."""
import glob
import os
import re
import shutil
import subprocess
import sys

ALLOWED_NEEDED = {"libc.so.6", "libdl.so.2"}
# Sanitizer runtimes a sanitized build adds: instrumentation, not a dependency.
SANITIZER_RUNTIME = re.compile(r"lib(?:asan|ubsan|tsan|lsan|clang_rt\.[\w.-]+)\.so[\d.]*")


def main():
    root = sys.argv[1]
    if shutil.which("readelf") is None:
        print("SKIP: readelf (binutils) is not installed")
        return 77
    plugins = sorted(glob.glob(os.path.join(root, "*", "hurray-plugin-*.so")))
    if not any(p.endswith("hurray-plugin-cpu.so") for p in plugins):
        print("FAIL: the cpu plugin is not in %s: nothing to check" % root)
        return 1
    failed = False
    for path in plugins:
        name = os.path.basename(path)
        before = failed
        if not re.fullmatch(r"hurray-plugin-[a-z0-9_-]+\.so", name):
            print("FAIL: %s: not named hurray-plugin-<name>.so" % name)
            failed = True
        dynamic = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True,
                                 check=True).stdout
        needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
        extra = sorted(n for n in needed - ALLOWED_NEEDED if not SANITIZER_RUNTIME.fullmatch(n))
        if extra:
            print("FAIL: %s links %s (only libc and libdl allowed)" % (name, ", ".join(extra)))
            failed = True
        symbols = subprocess.run(["readelf", "--dyn-syms", "-W", path], capture_output=True,
                                 text=True, check=True).stdout
        exported = set()
        for line in symbols.splitlines():
            cols = line.split()
            # Num: Value Size Type Bind Vis Ndx Name
            if len(cols) >= 8 and cols[4] in ("GLOBAL", "WEAK") and cols[6] != "UND":
                exported.add(cols[7].split("@")[0])
        if exported != {"hurray_plugin_entry"}:
            print("FAIL: %s exports %s, not only hurray_plugin_entry" %
                  (name, ", ".join(sorted(exported)) or "nothing"))
            failed = True
        if failed == before:
            print("ok: %s needs %s, exports hurray_plugin_entry" % (name, ", ".join(sorted(needed))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
