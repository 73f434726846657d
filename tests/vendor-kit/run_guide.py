#!/usr/bin/python3
"""The vendor guide run as written, against an install into a private prefix
(issue 44; specs/plugin-abi.md PL-BUILD-3, specs/cli.md CLI-INST-1,
CLI-CHK-3, CLI-CHK-5, CLI-DEV-7).

1. Installs the meson build BUILD_DIR (meson install --destdir, no rebuild)
   and moves the staged prefix to $HOME/hurray of a fresh, private $HOME: a
   private prefix as docs/vendor-guide.md's section 1 makes one, without a
   second build of libhurray (that section's own command block is the one
   block not run; it is marked so in the guide).
2. Runs every ```sh block of docs/vendor-guide.md, in order, in one bash
   session started in $HOME with a clean environment (no LD_LIBRARY_PATH,
   PKG_CONFIG_PATH, CMAKE_PREFIX_PATH or HURRAY_PLUGIN_PATH: only what the
   guide exports); a ```c block whose first line names a file
   ("/* acme_host.c: ...") is written to that file where it stands, as a
   reader saves it. Any command failing fails the test.
3. Compares each ```text block with the output of the ```sh block before
   it, $HOME shown as /home/you: a line "..." stands for any lines, and
   "..." inside a line for any text (the values the guide marks as
   measured).
4. Then what the guide does not show: the installed template built with
   each skeleton passes hurray-plugin-check --strict; a deliberately broken
   copy (allocate claiming twice the alignment its address shows) fails it
   naming the allocation check; the installed tools carry a RUNPATH relative
   to themselves and run from the prefix without LD_LIBRARY_PATH.

Usage: run_guide.py BUILD_DIR SOURCE_ROOT
Exit 0 pass, 1 fail, 77 skip (a tool the guide uses is missing: the reason
is printed). Writes only under a temporary directory it removes.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

GUIDE = os.path.join("docs", "vendor-guide.md")
NOT_RUN = "<!-- vendor-kit test: not run"
FILE_BLOCK = re.compile(r"^/\* ([A-Za-z0-9_.-]+\.c): ")
SHOWN_HOME = "/home/you"
NEEDED = ["meson", "ninja", "cmake", "cc", "pkg-config", "nm", "readelf", "bash"]


def blocks(path):
    """(kind, first line number, text, marked not run) of every fenced block."""
    out = []
    kind = None
    start = 0
    lines = []
    previous = ""
    marked = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            stripped = line.strip()
            if kind is None and stripped.startswith("```") and len(stripped) > 3:
                kind, start, lines = stripped[3:], number + 1, []
                marked = previous.startswith(NOT_RUN)
            elif kind is not None and stripped == "```":
                out.append((kind, start, "".join(lines), marked))
                kind = None
            elif kind is not None:
                lines.append(line)
            if stripped:
                previous = stripped
    return out


def script_of(guide_blocks, out_dir):
    """The bash script running the guide's blocks, each sh block's output
    kept in OUT_DIR/N.out; the list of (N, the sh block's line, the expected
    text, the text block's line); and {"N": the sh block's line}."""
    parts = ["set -eu", 'cd "$HOME"']
    expectations = []
    lines = {}
    last_sh = None
    count = 0
    for kind, line, text, marked in guide_blocks:
        if kind == "sh":
            last_sh = None
            if not marked:
                parts.append("echo %d > %s/current" % (count, out_dir))
                parts.append("{\n%s} > %s/%d.out 2>&1" % (text, out_dir, count))
                last_sh = (count, line)
                lines[str(count)] = line
                count += 1
        elif kind == "text" and last_sh is not None:
            expectations.append((last_sh[0], last_sh[1], text, line))
            last_sh = None
        elif kind == "c":
            named = FILE_BLOCK.match(text.splitlines()[0] if text else "")
            if named:
                parts.append("cat > %s <<'GUIDE_C_BLOCK'\n%sGUIDE_C_BLOCK" %
                             (named.group(1), text))
    return "\n".join(parts) + "\n", expectations, lines


def matches(expected, actual):
    """Line by line; "..." alone skips any lines, inside a line any text."""
    exp = expected.rstrip("\n").split("\n")
    act = actual.rstrip("\n").split("\n")

    def line_ok(e, a):
        if "..." not in e:
            return e == a
        pattern = ".*".join(re.escape(piece) for piece in e.split("..."))
        return re.fullmatch(pattern, a) is not None

    def walk(i, j):
        while i < len(exp):
            if exp[i] == "...":
                return any(walk(i + 1, k) for k in range(j, len(act) + 1))
            if j >= len(act) or not line_ok(exp[i], act[j]):
                return False
            i, j = i + 1, j + 1
        return j == len(act)

    return walk(0, 0)


def run(cmd, **kwargs):
    return subprocess.run(cmd, check=False, text=True, capture_output=True, **kwargs)


def install_private_prefix(build_dir, home):
    options = json.loads(run(["meson", "introspect", build_dir, "--buildoptions"]).stdout)
    value = {o["name"]: o["value"] for o in options}
    multiarch = run(["gcc", "-print-multiarch"]).stdout.strip()
    if value["libdir"] != "lib/" + multiarch:
        return "SKIP: the build's libdir is %s; the guide's commands name lib/%s" % (
            value["libdir"], multiarch)
    if value.get("pkgconfig.relocatable") is False:
        return ("FAIL: %s was configured without pkgconfig.relocatable (an older build "
                "folder): reconfigure it with -Dpkgconfig.relocatable=true or set it up anew"
                % build_dir)
    stage = os.path.join(os.path.dirname(home), "stage")
    r = run(["meson", "install", "-C", build_dir, "--no-rebuild", "--quiet", "--destdir", stage])
    if r.returncode != 0:
        return "FAIL: meson install --destdir: %s%s" % (r.stdout, r.stderr)
    shutil.move(stage + value["prefix"], os.path.join(home, "hurray"))
    return None


# After the guide: the CMake-built copy, a broken copy, the tools' RUNPATH.
AFTER_GUIDE = r"""
cd "$HOME"
echo '--- the CMake skeleton'"'"'s build, checked strictly'
hurray-plugin-check --strict acme/build-cmake/hurray-plugin-acme.so > after-cmake.out
tail -n 1 after-cmake.out
echo '--- a broken copy: allocate claims twice the alignment its address shows'
cp -R "$(pkg-config --variable=templatedir hurray-plugin-support)" broken
cd broken
sed -i 's/hurray_support_alignment_capped((uintptr_t)memory,/2u * &/' example-private_plugin.c
grep -q '2u \* hurray_support_alignment_capped((uintptr_t)memory,' example-private_plugin.c
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fPIC -shared -fvisibility=hidden example-private_plugin.c \
   $(pkg-config --cflags --libs hurray-plugin-support) -o hurray-plugin-broken.so
status=0
hurray-plugin-check --strict hurray-plugin-broken.so > "$HOME/after-broken.out" || status=$?
echo "exit status $status"
grep '^FAIL  allocation ' "$HOME/after-broken.out" | cut -c1-120
echo '--- the installed tools: RUNPATH relative to themselves, no LD_LIBRARY_PATH'
for tool in hurray-devices hurray-plugin-check; do
  readelf -d "$HOME/hurray/bin/$tool" | grep -o 'RUNPATH.*'
  env -u LD_LIBRARY_PATH "$HOME/hurray/bin/$tool" --help > /dev/null && echo "$tool runs"
done
"""

AFTER_EXPECTED = """--- the CMake skeleton's build, checked strictly
result: PASS (14 passed, 0 failed, 2 skipped)
--- a broken copy: allocate claims twice the alignment its address shows
exit status 1
FAIL  allocation                allocate(device 0, 10000 bytes, alignment 64, class standard): returned PLUGIN_INVALID (
--- the installed tools: RUNPATH relative to themselves, no LD_LIBRARY_PATH
RUNPATH)            Library runpath: [$ORIGIN/../lib/...]
hurray-devices runs
RUNPATH)            Library runpath: [$ORIGIN/../lib/...]
hurray-plugin-check runs
"""


def main():
    build_dir, source_root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    missing = [tool for tool in NEEDED if shutil.which(tool) is None]
    if missing:
        print("SKIP: the guide's commands need %s (tools/install-deps test)" % ", ".join(missing))
        return 77
    top = tempfile.mkdtemp(prefix="hurray-vendor-kit-")
    try:
        home = os.path.join(top, "home")
        os.mkdir(home, 0o700)
        problem = install_private_prefix(build_dir, home)
        if problem:
            print(problem)
            return 77 if problem.startswith("SKIP") else 1
        out_dir = os.path.join(top, "out")
        os.mkdir(out_dir)
        guide = os.path.join(source_root, GUIDE)
        script, expectations, sh_lines = script_of(blocks(guide), out_dir)
        script += AFTER_GUIDE
        env = {"HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
               "TMPDIR": top}
        r = subprocess.run(["bash", "-c", script + "\n"], env=env, cwd=home, text=True,
                           capture_output=True, check=False)
        failed = False
        if r.returncode != 0:
            current = open(os.path.join(out_dir, "current")).read().strip() if os.path.exists(
                os.path.join(out_dir, "current")) else "?"
            print("FAIL: a command of the sh block at %s:%s failed (exit status %d); it printed:"
                  % (GUIDE, sh_lines.get(current, "?"), r.returncode))
            path = os.path.join(out_dir, "%s.out" % current)
            if os.path.exists(path):
                print(open(path).read())
            print(r.stdout + r.stderr)
            return 1
        for index, sh_line, expected, text_line in expectations:
            actual = open(os.path.join(out_dir, "%d.out" % index)).read().replace(home, SHOWN_HOME)
            if matches(expected, actual):
                print("ok: %s:%d: the output shown at line %d" % (GUIDE, sh_line, text_line))
            else:
                failed = True
                print("FAIL: %s:%d: the output shown at line %d is not what the commands printed."
                      "\n--- shown:\n%s--- printed:\n%s" % (GUIDE, sh_line, text_line, expected,
                                                           actual))
        after = r.stdout.replace(home, SHOWN_HOME)
        if matches(AFTER_EXPECTED, after):
            print("ok: both skeletons' builds pass hurray-plugin-check --strict; the broken copy "
                  "fails naming the allocation check; the tools run from the prefix without "
                  "LD_LIBRARY_PATH")
        else:
            failed = True
            print("FAIL: after the guide:\n--- expected:\n%s--- printed:\n%s%s" %
                  (AFTER_EXPECTED, after, r.stderr))
        print("%d command blocks of %s run, %d of their outputs compared" %
              (len(sh_lines), GUIDE, len(expectations)))
        return 1 if failed else 0
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
