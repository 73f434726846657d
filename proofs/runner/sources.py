"""The project's files, the flags the build compiles the proven core with,
and the checks made on the sources before anything is proved."""
import glob
import json
import os
import re
import shlex
import subprocess

from . import config


class Project:
    """Where everything is. src: the source tree proved; build: a meson build
    directory whose compile_commands.json gives the flags (it may have been
    configured from another checkout of the same tree: its source root is
    mapped onto src)."""

    def __init__(self, src, build, work=None):
        self.src, self.build = os.path.abspath(src), os.path.abspath(build)
        j = lambda *p: os.path.join(self.src, *p)
        self.proven = sorted(glob.glob(j("core", "proven", "*.c")))
        self.headers = sorted(glob.glob(j("core", "proven", "*.h")))
        self.integrator = sorted(glob.glob(j("proofs", "integrator", "*.c")))
        self.theorems = sorted(glob.glob(j("proofs", "theorems", "*.c")))
        self.variants = sorted(glob.glob(j("proofs", "negative", "*.variant")))
        self.public_headers = sorted(glob.glob(j("include", "hurray", "*.h")))
        self.model = j("proofs", "model", "hurray_model.h")
        self.why3conf = j("proofs", "why3.conf")
        self.exporter = j("proofs", "export-contracts")
        self.ledger = j("proofs", "ledger.txt")
        self.report = j("docs", "proof-report.md")
        self.summary = j("proofs", "results", "summary.txt")
        self.work = os.path.abspath(work) if work else os.path.join(self.build, "proofs")

    def rel(self, path):
        return os.path.relpath(path, self.src)

    @property
    def sources(self):
        """The files of every core run (functions, model lemmas)."""
        return self.proven


def compile_flags(project):
    """The preprocessor flags the build compiles core/proven with."""
    db_path = os.path.join(project.build, "compile_commands.json")
    try:
        with open(db_path, encoding="utf-8") as f:
            db = json.load(f)
    except OSError as e:
        raise SystemExit("proofs: cannot read %s (%s): run meson setup first" % (db_path, e))
    build_src = meson_source_root(project.build) or project.src

    build = os.path.normpath(project.build)

    def here(path):
        # A path of the build's source tree, as a path of the tree proved;
        # the build directory's own files (generated headers) stay where
        # they are, wherever the build directory lies.
        path = os.path.normpath(path)
        if path == build or path.startswith(build + os.sep):
            return path
        if path == build_src or path.startswith(build_src + os.sep):
            return project.src + path[len(build_src):]
        return path
    per_file = {}
    for entry in db:
        path = here(os.path.join(entry["directory"], entry["file"]))
        if path not in project.proven:
            continue
        args = entry.get("arguments") or shlex.split(entry["command"])
        flags = []
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("-I", "-D", "-U", "-include", "-isystem") and i + 1 < len(args):
                a, i = a + args[i + 1], i + 1
            if a.startswith("-I") or a.startswith("-isystem"):
                key = "-I" if a.startswith("-I") else "-isystem"
                d = here(os.path.join(entry["directory"], a[len(key):]))
                # Meson's per-target private folders (objects, no headers)
                # differ between the static and the shared library.
                if not d.endswith(".p"):
                    flags.append(key + d)
            elif a.startswith(("-D", "-U")):
                flags.append(a)
            elif a.startswith("-include"):
                flags.append("-include" + here(os.path.join(entry["directory"],
                                                            a[len("-include"):])))
            i += 1
        # The archive's copy is compiled with HURRAY_STATIC, which changes
        # only the visibility attribute of the declarations (export.h,
        # VER-SYM-1); the shared library's copy is the one proven.
        if "-DHURRAY_STATIC" in flags:
            continue
        per_file.setdefault(path, flags)
    missing = [p for p in project.proven if p not in per_file]
    if missing:
        raise SystemExit("proofs: not compiled by the build (add to core/meson.build): " +
                         ", ".join(project.rel(p) for p in missing))
    distinct = {tuple(v) for v in per_file.values()}
    if len(distinct) != 1:
        raise SystemExit("proofs: core/proven files are compiled with different flags; "
                         "one Frama-C run cannot reproduce them: %s" % distinct)
    return list(distinct.pop())


def meson_source_root(build):
    try:
        with open(os.path.join(build, "meson-info", "meson-info.json"), encoding="utf-8") as f:
            return os.path.normpath(json.load(f)["directories"]["source"])
    except (OSError, KeyError, ValueError):
        return None


def model_adds_no_code(project, flags):
    """Preprocessed, the model must equal the header it includes: only ACSL."""
    def pp(path):
        out = subprocess.run(["gcc", "-E", "-P", "-x", "c"] + flags + [path],
                             capture_output=True, text=True, check=True).stdout
        return [l for l in out.splitlines() if l.strip()]
    header = os.path.join(project.src, "include", "hurray", "buffer.h")
    return pp(project.model) == pp(header)


def acsl_blocks(text):
    return re.findall(r"/\*@.*?\*/|//@[^\n]*", text, re.S)


def forbidden_constructs(paths, project):
    """One problem per escape hatch found (admit, axiom, assume, ...)."""
    problems = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            text = f.read()
        scanned = "\n".join(acsl_blocks(text))
        for rx, what in config.FORBIDDEN_ACSL:
            hay = text if what.startswith("__FRAMAC__") else scanned
            if rx.search(hay):
                problems.append("%s: %s" % (project.rel(p), what))
    return problems


def functions_with_contracts(path):
    """(name, requirement IDs cited in its contract) for each definition."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = []
    rx = re.compile(r"(/\*@(?:(?!\*/).)*?\*/)\s*((?:static\s+|inline\s+)*[A-Za-z_][\w \*]*?"
                    r"\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{)", re.S)
    for m in rx.finditer(text):
        ids = sorted(set(config.REQ_ID.findall(m.group(1))))
        found.append((m.group(3), ids))
    return found


def function_text(text, name):
    """The definition of function (or static array) `name` in a C file,
    contract excluded, braces included. None when absent."""
    m = re.search(r"\n[^\n;]*\b%s\b(?:\([^;{]*\)|\[[^;{]*\])\s*=?\s*\{.*?\n\}[^\n]*\n" %
                  re.escape(name), text, re.S)
    return m.group(0) if m else None


def contract_text(text, name):
    """The ACSL contract right above the definition of function `name`, or
    None: a smoke variant plants its fault there (a precondition that
    contradicts itself, or one that makes a branch unreachable)."""
    m = re.search(r"/\*@(?:(?!\*/).)*?\*/\s*(?:static\s+|inline\s+)*[A-Za-z_][\w \*]*?"
                  r"\b%s\s*\(" % re.escape(name), text, re.S)
    return m.group(0) if m else None


# A declaration: the name, its labels if any, then the colon (so that the
# word "lemma" in an ACSL comment is not taken for one).
LEMMA = re.compile(r"\blemma\s+(\w+)\s*(?:\{[^}]*\})?\s*:")


def declared_lemmas(paths):
    """Names of the ACSL lemmas declared in these files."""
    names = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            names += LEMMA.findall("\n".join(acsl_blocks(f.read())))
    return sorted(names)


def parse_variant(path):
    """A negative variant: file:, function:, machdep:, fails: or smoke-fails:,
    optionally timeout: (seconds, for its named goals), the comment lines (why), then the text to replace: and what to put with:."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    meta, why, i = {}, [], 0
    while i < len(lines) and lines[i] != "replace:":
        line = lines[i]
        if line.startswith("#"):
            why.append(line.lstrip("# "))
        elif ":" in line:
            k, v = line.split(":", 1)
            meta[k.strip()] = v.strip()
        i += 1
    if "with:" not in lines[i:]:
        raise ValueError("%s: no replace:/with: sections" % path)
    j = lines.index("with:", i)
    meta["replace"] = "\n".join(lines[i + 1:j])
    meta["with"] = "\n".join(lines[j + 1:]).rstrip("\n")
    meta["why"] = " ".join(why)
    meta["name"] = os.path.basename(path)[:-len(".variant")]
    meta["path"] = path
    meta.setdefault("machdep", config.MACHDEPS[0])
    meta["smoke"] = "smoke-fails" in meta
    key = "smoke-fails" if meta["smoke"] else "fails"
    meta["named"] = sorted(x.strip() for x in meta.get(key, "").split(",") if x.strip())
    try:  # the named goals' timeout, when one is slower than config's allows
        meta["timeout"] = int(meta.get("timeout", config.NEGATIVE_TIMEOUT_S))
    except ValueError:
        raise ValueError("%s: timeout: %r is not a number of seconds" % (path, meta["timeout"]))
    return meta


def mutate(project, v):
    """(mutated text of the variant's file, None) or (None, problem): the
    variant must apply exactly once, inside its function (its body, a
    constant table the body reads, or for a smoke variant its contract)."""
    target = os.path.join(project.src, v.get("file", ""))
    try:
        with open(target, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        return None, "negative variant %s: cannot read file: %s (%s)" % (
            v["name"], v.get("file"), e)
    if v["machdep"] not in config.MACHDEPS:
        return None, "negative variant %s: machdep %s is not one of %s" % (
            v["name"], v["machdep"], ", ".join(config.MACHDEPS))
    if not v["named"]:
        return None, "negative variant %s names no goal that must fail (%s)" % (
            v["name"], "smoke-fails:" if v["smoke"] else "fails:")
    if text.count(v["replace"]) != 1:
        return None, "negative variant %s no longer applies to %s (update it)" % (
            v["name"], v.get("file"))
    # Only the named function is proved: a mutation elsewhere (code moved to
    # a callee) would be judged through an unchanged contract and prove. A
    # constant table the function reads counts as part of it.
    body = function_text(text, v.get("function", ""))
    tables = [t for t in re.findall(r"static const [\w ]+?\b(\w+)\[[^\]]*\] =", text)
              if body is not None and re.search(r"\b%s\b" % t, body)]
    contract = contract_text(text, v["function"]) if v["smoke"] else None
    if body is None or not (v["replace"] in body or any(
            v["replace"] in (function_text(text, t) or "") for t in tables) or
            (contract is not None and v["replace"] in contract)):
        return None, "negative variant %s changes code outside %s (update its function:)" % (
            v["name"], v.get("function"))
    return text.replace(v["replace"], v["with"]), None
