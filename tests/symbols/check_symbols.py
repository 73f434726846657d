#!/usr/bin/env python3
"""Symbol checks of specs/versioning.md, on built artefacts (nm from binutils).

  archive  NM LIBHURRAY_A    VER-SYM-2: every defined global is hurray_*
  consumer NM CONSUMER_SO [--no-run]
                             VER-SYM-1: a -fvisibility=hidden HURRAY_STATIC
                             shared object linking the archive exports no
                             hurray_* symbol, exports its entry point, and
                             that entry point runs (returns 0)
  shared   NM LIBHURRAY_SO   VER-SYM-3: the shared library exports hurray_*
                             symbols only, each in the version node HURRAY_0
                             (VER-LIB-3: the one node until the first
                             release); VER-LIB-2: its soname is
                             libhurray.so.MAJOR of the file's version
  nodiscard CC...            VER-SYM-4: ignoring a status is a warning
                             (an error with -Werror), unless
                             HURRAY_NO_WARN_UNUSED is defined

Exits 0 on success, 1 with every offending symbol named otherwise.
"""
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile

# nm letters of defined symbols (upper case: global; weak V/W; indirect i;
# unique u); 'U' is undefined and --defined-only drops it anyway.
GLOBAL_DEFINED = set("ABCDGRSTVWiu")


def defined_globals(nm, path, dynamic):
    args = [nm, "--defined-only", "-P"] + (["-D"] if dynamic else ["-g"]) + [path]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    symbols = []
    for line in out.splitlines():
        fields = line.split()
        # "-P": name type [value size]; an archive member header ends in ':'.
        if len(fields) < 2 or fields[0].endswith(":") or fields[0].endswith("]:"):
            continue
        if fields[1] in GLOBAL_DEFINED:
            symbols.append(fields[0])
    return symbols


def fail(what, names):
    print(f"FAIL: {what}:")
    for name in sorted(set(names)):
        print(f"  {name}")
    return 1


def check_archive(nm, archive):
    symbols = defined_globals(nm, archive, dynamic=False)
    if not any(s.startswith("hurray_") for s in symbols):
        return fail(f"{archive} defines no hurray_ symbol (is it the archive?)", symbols)
    bad = [s for s in symbols if not s.startswith("hurray_")]
    if bad:
        return fail(f"{archive} defines globals outside the hurray_ prefix (VER-SYM-2)", bad)
    print(f"ok: {len(set(symbols))} defined globals in {os.path.basename(archive)}, all hurray_*")
    return 0


def check_consumer(nm, shared_object, run=True):
    symbols = [s.split("@")[0] for s in defined_globals(nm, shared_object, dynamic=True)]
    if "static_consumer_run" not in symbols:
        return fail(f"{shared_object} does not export static_consumer_run", symbols)
    leaked = [s for s in symbols if s.startswith("hurray_")]
    if leaked:
        return fail(f"{shared_object} exports libhurray symbols (VER-SYM-1)", leaked)
    if not run:
        print(f"ok: {os.path.basename(shared_object)} exports {len(symbols)} symbol(s), no"
              " hurray_* (not called: sanitizer build)")
        return 0
    status = ctypes.CDLL(os.path.abspath(shared_object)).static_consumer_run()
    if status != 0:
        print(f"FAIL: static_consumer_run returned {status}")
        return 1
    print(f"ok: {os.path.basename(shared_object)} exports {len(symbols)} symbol(s), no hurray_*,"
          " and runs")
    return 0


def check_shared(nm, library):
    symbols = defined_globals(nm, library, dynamic=True)
    # The version node itself is listed as an absolute symbol.
    symbols = [s for s in symbols if s not in ("HURRAY_0", "HURRAY_0@@HURRAY_0")]
    names = [s.split("@")[0] for s in symbols]
    if "hurray_version_check" not in names:
        return fail(f"{library} does not export hurray_version_check", names)
    foreign = [s for s in names if not s.startswith("hurray_")]
    if foreign:
        return fail(f"{library} exports symbols outside the hurray_ prefix (VER-SYM-3)", foreign)
    unversioned = [s for s in symbols if not s.endswith("@@HURRAY_0")]
    if unversioned:
        return fail(f"{library} exports symbols outside the node HURRAY_0 (VER-SYM-3)",
                    unversioned)
    internal = [s for s in names if s.startswith("hurray_internal_")]
    if internal:
        return fail(f"{library} exports internal symbols (VER-SYM-2)", internal)
    # VER-LIB-2: the soname is the MAJOR of the version the file carries.
    real = os.path.basename(os.path.realpath(library))
    version = re.fullmatch(r"libhurray\.so\.(\d+)\.(\d+)\.(\d+)", real)
    readelf = shutil.which("readelf")
    if version is None or readelf is None:
        return fail(f"{library}: cannot read its version from {real} or find readelf", [real])
    dynamic = subprocess.run([readelf, "-d", library], check=True, capture_output=True,
                             text=True).stdout
    soname = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", dynamic)
    expected = f"libhurray.so.{version.group(1)}"
    if soname is None or soname.group(1) != expected:
        return fail(f"{library}: soname is not {expected} (VER-LIB-2)",
                    [soname.group(1) if soname else "(none)"])
    print(f"ok: {len(names)} exported symbols, all hurray_* in HURRAY_0; soname {expected}")
    return 0


IGNORES_STATUS = r"""
#include "hurray/handoff.h"
void drops(hurray_handoff *handoff);
void drops(hurray_handoff *handoff) { hurray_handoff_release(handoff, 0); }
"""

KEEPS_STATUS = r"""
#include "hurray/handoff.h"
int keeps(hurray_handoff *handoff);
int keeps(hurray_handoff *handoff) {
  const hurray_status released = hurray_handoff_release(handoff, 0);
  (void)released; /* VER-SYM-4: the deliberate way to drop a status */
  return hurray_handoff_destroy(handoff, 0) == HURRAY_OK;
}
"""


def compiles(cc, include_dir, source, extra):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.c")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        result = subprocess.run(cc + ["-std=c11", "-Werror", "-Wall", "-I", include_dir, "-c",
                                      path, "-o", os.path.join(tmp, "probe.o")] + extra,
                                capture_output=True, text=True)
        return result.returncode == 0, result.stderr


def check_nodiscard(cc, include_dir):
    ok, errors = compiles(cc, include_dir, IGNORES_STATUS, [])
    if ok or "hurray_handoff_release" not in errors:
        print("FAIL: dropping the status of hurray_handoff_release compiled under -Werror")
        print(errors)
        return 1
    ok, errors = compiles(cc, include_dir, IGNORES_STATUS, ["-DHURRAY_NO_WARN_UNUSED"])
    if not ok:
        print("FAIL: HURRAY_NO_WARN_UNUSED does not turn the warning off:\n" + errors)
        return 1
    ok, errors = compiles(cc, include_dir, KEEPS_STATUS, [])
    if not ok:
        print("FAIL: a status kept in a variable and cast to void still warns:\n" + errors)
        return 1
    print(f"ok: {' '.join(cc)} refuses a dropped status; HURRAY_NO_WARN_UNUSED and the"
          " variable idiom compile")
    return 0


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    mode = argv[1]
    if mode == "nodiscard":
        return check_nodiscard(argv[2:-1], argv[-1])
    nm, path = argv[2], argv[3]
    if mode == "consumer":
        return check_consumer(nm, path, run="--no-run" not in argv[4:])
    checks = {"archive": check_archive, "consumer": check_consumer, "shared": check_shared}
    if mode not in checks:
        print(__doc__)
        return 2
    return checks[mode](nm, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
