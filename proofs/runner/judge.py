"""Each unit's verdict from the runs that proved it: every goal Valid, every
smoke test passed, no warning, every property of its functions Valid (a
function's own preconditions are proved at its call sites, which are the
callers' goals); a negative variant must fail exactly the goals it names."""
import csv
import fnmatch
import os
import re

from . import config, ledger as ledger_mod
from .framac import WARNING_LINE

SMOKE_SID = re.compile(r"_wp_smoke_\w*?_s(\d+)$")


class Result:
    def __init__(self, unit):
        self.unit = unit
        self.goals, self.smoke, self.problems = [], [], []
        self.cpu, self.wall, self.jobs = 0.0, 0.0, []
        self.verdict = None
        self.failed = []   # a variant: the goals (or smoke tests) that failed
        self.summary = ""  # a variant: what its result says

    @property
    def passing(self):
        return self.verdict in ledger_mod.PASSING

    def provers(self):
        """{goal relative to the unit: (prover, seconds)} of its proved goals."""
        prefix = self.unit.function + "_" if self.unit.kind == "function" else ""
        out = {}
        for g in self.goals:
            if g["status"] == "Valid" and g["prover"] in ("z3", "cvc4", "script"):
                name = g["name"][len(prefix):] if g["name"].startswith(prefix) else g["name"]
                out[name] = (g["prover"], g["time"])
        return out

    def entry(self):
        return ledger_mod.Entry(self.unit.key, self.unit.name, self.verdict,
                                len(self.goals), len(self.smoke), self.cpu, 0,
                                self.provers() if self.unit.kind != "variant" else {},
                                self.failed if self.unit.kind == "variant" else ())


def owner_of(name, functions):
    """The function of `functions` a goal name belongs to (the longest whose
    name, or a renamed copy's, prefixes it)."""
    best = None
    for f in functions:
        if name == f or re.match(r"%s(?:_\d+)?_" % re.escape(f), name):
            if best is None or len(f) > len(best):
                best = f
    return best


def attribute(jobs, units, programs):
    """{unit name: Result} with each job's goals, smoke tests and CPU."""
    results = {u.name: Result(u) for u in units}
    for j in jobs:
        by_fct = {u.function: u for u in j.units if u.kind == "function"}
        single = j.units[0] if len(j.units) == 1 else None
        weights = {}
        for g in j.goals:
            owner = None
            if single is not None and (single.kind != "function" or
                                       owner_of(g["name"], j.functions)):
                owner = single
            if g["kind"] == "Smoke-test" and (owner is None or single.kind == "function"):
                m = SMOKE_SID.search(g["name"])
                prog = programs.get(j.machdep)
                fn = prog.sid_owner.get(int(m.group(1))) if (m and prog) else None
                fn = owner_of(fn, j.functions) if fn else owner_of(g["name"], j.functions)
                owner = by_fct.get(fn, owner) if fn else owner
            elif owner is None:
                owner = by_fct.get(owner_of(g["name"], j.functions))
            if owner is None:
                for u in j.units:
                    results[u.name].problems.append(
                        "%s: run %s has %s %s, which belongs to none of its units" %
                        (u.name, j.name, g["kind"].lower(), g["name"]))
                continue
            r = results[owner.name]
            if g["kind"] == "Smoke-test":
                r.smoke.append(g)
                weights[owner.name] = weights.get(owner.name, 0.2) + 1.0
            else:
                if j.kind in ("smoke", "variant-smoke"):
                    r.problems.append("%s: smoke run %s generated goal %s (only smoke tests "
                                      "were asked)" % (owner.name, j.name, g["name"]))
                r.goals.append(dict(g, job=j.name))
                weights[owner.name] = weights.get(owner.name, 1.0) + g["time"] + 0.02
        for u in j.units:
            weights.setdefault(u.name, 1.0)
            results[u.name].jobs.append(j)
        total = sum(weights.values())
        for name, w in weights.items():
            results[name].cpu += j.cpu * w / total
            results[name].wall = max(results[name].wall, j.wall)
    return results


def job_problems(j):
    """A run's exit status, its "Proved goals" line, its warnings (in a smoke
    variant's smoke run, WP's warning for each smoke test the planted fault
    fails is what is expected: that run is judged by the smoke tests it
    fails). A smoke run whose functions have no smoke test at all (no
    precondition, branch, loop or call: a unit proven alone by the gate, such
    as an accessor) ends with WP's "No goal generated" and no "Proved goals"
    line: that is zero smoke tests, not a run that failed."""
    out = []
    no_smoke_test = (j.kind == "smoke" and j.rc == 0 and j.proved is None and
                     re.search(r"^\[wp\] Warning: No goal generated$", j.out, re.M))
    if j.rc != 0:
        out.append("frama-c (run %s) exited %d (log: %s)%s" % (
            j.name, j.rc, j.log, "".join("\n    " + l for l in j.out.splitlines()
                                          if "ERROR" in l or "rror:" in l)[:2000]))
    if j.proved is None and not no_smoke_test:
        out.append("run %s: no 'Proved goals' line: WP did not run (log: %s)" % (j.name, j.log))
    lines = j.out.splitlines()
    for i, line in enumerate(lines):
        if WARNING_LINE.match(line):
            text = (line + " " + (lines[i + 1].strip() if i + 1 < len(lines) else "")).strip()
            if j.kind == "variant-smoke" and re.search(r"Warning:\s*Failed smoke-test$", text):
                continue
            if no_smoke_test and line.strip() == "[wp] Warning: No goal generated":
                continue
            out.append("Frama-C warning (run %s): %s" % (j.name, text))
    return out


def properties(j):
    try:
        with open(j.csv, encoding="utf-8") as f:
            return list(csv.DictReader(f, delimiter="\t"))
    except OSError:
        return None


def judge_unit(r, inventory):
    u = r.unit
    for j in r.jobs:
        r.problems += ["%s: %s" % (u.name, p) for p in job_problems(j)]
    for g in r.goals:
        if g["status"] != "Valid":
            # A goal that no prover proved has WP's verdict in the tag of its
            # line ("[wp] [Timeout] Goal ..."), and no ": status" after it.
            r.problems.append("%s: goal %s is %s (run %s)" % (
                u.name, g["name"], g["status"] or g["tag"], g["job"]))
    for g in r.smoke:
        if g["status"] != "Passed":
            r.problems.append("%s: smoke test %s failed: a vacuous precondition, dead code or "
                              "an inconsistent loop invariant" % (u.name, g["name"]))
    if not r.goals:
        r.problems.append("%s: no goal was proved" % u.name)
    mine = set()
    for f in u.functions:
        prog = inventory.programs.get(u.machdep)
        mine |= set(prog.copies(f)) if prog and f in prog.functions else {f}
    for j in r.jobs:
        rows = properties(j)
        if rows is None:
            r.problems.append("%s: run %s wrote no property report" % (u.name, j.name))
            continue
        for p in rows:
            fn, status, kind = p["function"], p["status"], p["property kind"]
            if u.kind in ("lemmas", "theorem-lemmas"):
                continue
            if fn in mine:
                if status == "Valid" or kind == "precondition":
                    continue  # a precondition is proved at the call sites
                allowed = (fn, kind) in {(a, b) for a, b, _ in config.ALLOWED_CONSIDERED_VALID}
                if not (status == "Considered valid" and allowed):
                    r.problems.append("%s: property %s of %s (%s:%s) is '%s': %s" % (
                        u.name, kind, fn, p["file"], p["line"], status, p["property"]))
            elif u.kind in ("integrator", "theorems") and fn and status != "Valid" and not (
                    status == "Considered valid" and fn in inventory.contracts):
                r.problems.append("%s: property %s of %s (%s:%s) is '%s'" % (
                    u.name, kind, fn, p["file"], p["line"], status))
    if u.kind in ("lemmas", "theorem-lemmas"):
        names = inventory.lemmas if u.kind == "lemmas" else inventory.theorem_lemmas
        for lemma in names:
            if not any(g["name"] == "lemma_" + lemma and g["status"] == "Valid"
                       for g in r.goals):
                r.problems.append("%s: lemma %s is not proved" % (u.name, lemma))
    r.verdict = "failed" if r.problems else "proved"


def judge_variant(r, core_times, scale):
    """core_times: {goal: seconds} of the mutated function's goals in its own
    unit (this run's, or the ledger's)."""
    u, v = r.unit, r.unit.variant
    problems = []
    for j in r.jobs:
        problems += job_problems(j)
    failed_goals = sorted(g["name"] for g in r.goals if g["status"] != "Valid")
    if v["smoke"]:
        failed = sorted({g["name"] for g in r.smoke if g["status"] != "Passed"})
        expected = v["named"]
        unmatched = [f for f in failed if not any(fnmatch.fnmatchcase(f, e) for e in expected)]
        missed = [e for e in expected if not any(fnmatch.fnmatchcase(f, e) for f in failed)]
        r.failed = ["%s(%d)" % (e, sum(1 for f in failed if fnmatch.fnmatchcase(f, e)))
                    for e in expected]
        if problems:
            r.summary = "did not run: " + problems[0]
        elif failed_goals:
            r.summary = ("goals unproved: %s; a smoke variant's fault must leave every goal "
                         "provable, so that only the smoke tests can catch it" %
                         ", ".join(failed_goals))
        elif not r.smoke:
            r.summary = "no smoke test was run"
        elif not failed:
            r.summary = "MISSED: every smoke test passed, the vacuity went unnoticed"
        elif unmatched or missed:
            r.summary = ("smoke tests failed: %s; named: %s (update smoke-fails:)" %
                         (", ".join(failed), ", ".join(expected)))
        else:
            r.summary = "caught: %d smoke tests fail, %s; all %d goals proved" % (
                len(failed), ", ".join("`%s` (%d)" % (e, sum(
                    1 for f in failed if fnmatch.fnmatchcase(f, e))) for e in expected),
                len(r.goals))
            r.verdict = "caught"
            return
        r.verdict = "missed"
        r.problems.append("negative variant %s: %s" % (v["name"], r.summary))
        return
    expected = v["named"]
    r.failed = failed_goals
    named_timeout = next((j.named_timeout for j in r.jobs if j.named_timeout), None) or \
        config.NEGATIVE_TIMEOUT_S
    limit = named_timeout * scale / 2
    slow = [x for x in expected if core_times.get(x) is None or core_times[x] > limit]
    proved = sum(1 for g in r.goals if g["status"] == "Valid")
    if problems:
        r.summary = "did not run: " + problems[0]
    elif not r.goals:
        r.summary = "no goal was generated"
    elif not failed_goals:
        r.summary = "PROVED (%d/%d): the proof misses it" % (proved, len(r.goals))
    elif failed_goals != expected:
        r.summary = ("failed %s, not the goals it names (%s): update fails: or the proof" %
                     (", ".join(failed_goals), ", ".join(expected)))
    elif slow:
        r.summary = ("names %s, which did not prove in its function's unit within %g s "
                     "(half the timeout of a named goal): its failure could be a timeout" %
                     (", ".join(slow), limit))
    else:
        r.summary = "fails as it must: %s (%d / %d proved)" % (
            ", ".join("`%s`" % x for x in failed_goals), proved, len(r.goals))
        r.verdict = "caught"
        return
    r.verdict = "missed"
    r.problems.append("negative variant %s: %s" % (v["name"], r.summary))
