"""The runner's commands.

  gate    (meson run target `proofs`; tools/test's proof stage) proves cold
          every unit whose key the ledger lacks and an audit slice of the
          others; fails on a unit that does not prove, an audited verdict
          that differs from the ledger's, a ledger line for a unit that no
          longer exists. Writes only the build directory.
  cold    (meson run target `proofs-cold`) proves every unit cold and takes
          nothing from the ledger; --update-committed writes its report over
          docs/proof-report.md and proofs/results/summary.txt and rewrites
          proofs/ledger.txt; otherwise fails unless the committed report says
          what this run found.
  update  (the developer's inner loop) proves the units whose key changed
          (both data models, and the variants of a changed function) and
          writes their lines in proofs/ledger.txt, removing stale ones.
  keys    prints every unit, its key and what the ledger says of it.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

from . import config, judge, ledger as ledger_mod, plan, report, sources, units
from .framac import log, run_pool


def fail(problems, msg):
    problems.append(msg)
    log("proofs: FAIL: " + msg)


class Cpu:
    @staticmethod
    def now():
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="proofs/run-proofs",
                                 description="The proof of libhurray's proven core.",
                                 epilog=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="gate", choices=["gate", "cold", "update", "keys"])
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--source-root", default=os.path.dirname(here))
    ap.add_argument("--build-root", required=True)
    ap.add_argument("--work", help="where the runs' files go (default: BUILD/proofs)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="prover processes per Frama-C run (-wp-par); the machine's cores")
    ap.add_argument("--processes", type=int, default=3,
                    help="Frama-C runs at a time (goal timeouts are multiplied by this); "
                         "3 on 2 cores keeps both busy while a run generates goals")
    ap.add_argument("--audit-slice", default=None,
                    help="gate: the slice to audit (0..%d), 'all' or 'none' (default: the "
                         "number of commits on the branch modulo %d; 'none' is for the "
                         "tests of the gate itself)" % (config.AUDIT_SLICES - 1,
                                                        config.AUDIT_SLICES))
    ap.add_argument("--audit-units", default="",
                    help="gate: these units (comma-separated) are audited too")
    ap.add_argument("--units", default="",
                    help="update: prove these units too, whatever their key")
    ap.add_argument("--hints-from", metavar="DIR",
                    help="take the provers that won each goal from the Frama-C logs in DIR "
                         "(frama-c-*.log of an earlier run) where the ledger has none")
    ap.add_argument("--update-committed", action="store_true",
                    help="cold: write the report, the summary and the ledger into the tree")
    return ap.parse_args(argv)


def static_checks(project, flags, problems):
    if not sources.model_adds_no_code(project, flags):
        fail(problems, "proofs/model/hurray_model.h adds C code: the proven code would differ")
    p = project
    for msg in sources.forbidden_constructs(p.proven + p.headers + p.integrator +
                                            p.theorems + [p.model], p):
        fail(problems, msg)
    exported = subprocess.run([sys.executable, p.exporter, "--source-root", p.src, "--check"],
                              capture_output=True, text=True)
    log("proofs: " + (exported.stdout + exported.stderr).strip().replace("\n", "\nproofs: "))
    if exported.returncode != 0:
        fail(problems, "include/hurray/contracts.h is not the contracts proven here")


def core_times(variant, results, ledger):
    """{goal: seconds} of the mutated function's goals in its own unit: this
    run's when it proved that unit, else the ledger's (a goal it does not
    list proved by Qed; a listed goal without @T took under a second)."""
    name = "%s/%s" % (variant["machdep"], variant.get("function"))
    r = results.get(name)
    if r is not None:
        return {g["name"]: g["time"] for g in r.goals if g["status"] == "Valid"}
    e = ledger.get(name)
    if e is None or not e.passing:
        return {}
    prefix = variant.get("function") + "_"
    out = {}
    for g in variant["named"]:
        rel = g[len(prefix):] if g.startswith(prefix) else g
        out[g] = max(e.provers[rel][1], 1.0) if rel in e.provers else 0.0
    return out


def save_proof_scripts(project, inv, results):
    """Writes the bit-shift functions' WP proof scripts into proofs/sessions/
    when the goals they cover changed (a goal without a script, or a script
    for a goal that is gone): a replayed script is kept as committed, so the
    key of its unit does not churn. Returns the units whose key changed."""
    changed = []
    for r in results.values():
        u = r.unit
        if u.kind != "function" or u.function not in config.BIT_SHIFT_FUNCTIONS or \
                not r.passing:
            continue
        committed = plan.session_dir(project, u.machdep)
        run = next(j for j in r.jobs if j.kind == "bit-shift")
        new = plan.scripts_of(run.session, u.function)
        old = plan.scripts_of(committed, u.function)
        if {os.path.basename(x) for x in new} == {os.path.basename(x) for x in old}:
            continue
        for path in old:
            os.remove(path)
        plan.copy_scripts(run.session, committed, u.function)
        u.key = inv.key_of(u)
        changed.append(u.name)
        log("proofs: wrote %d proof scripts of %s into %s" % (
            len(new), u.name, project.rel(committed)))
    return changed


def hints_from_logs(directory, inv):
    """A ledger holding only the winners the Frama-C logs of an earlier run
    show (provers racing: each goal line names its prover), by unit: a way to
    start a ledger, or to keep the hints of units the ledger lacks."""
    import glob
    from .framac import parse_wp
    hints = ledger_mod.Ledger(os.path.join(directory, "(none)"))
    owners = {"theorems": inv.theorem_fcts, "integrator": inv.integrator_fcts}
    for path in sorted(glob.glob(os.path.join(directory, "frama-c-*.log"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        m = re.search(r"-machdep (\S+)", text.split("\n", 1)[0])
        if not m or m.group(1) not in config.MACHDEPS:
            continue
        md = m.group(1)
        for g in parse_wp(text)[0]:
            if g["kind"] != "Goal" or g["status"] != "Valid" or g["prover"] not in config.PROVERS:
                continue
            name = g["name"]
            if name.startswith("lemma_"):
                unit = "%s/%s" % (md, "lemmas" if name[6:] in inv.lemmas else "theorem-lemmas")
                rel = name
            else:
                fn = judge.owner_of(name, inv.core_functions)
                kind = next((k for k, fs in owners.items() if judge.owner_of(name, fs)), None)
                if kind:
                    unit, rel = "%s/%s" % (md, kind), name
                elif fn:
                    unit, rel = "%s/%s" % (md, fn), name[len(fn) + 1:]
                else:
                    continue
            e = hints.entries.setdefault(unit, ledger_mod.Entry("", unit, "proved"))
            e.provers[rel] = (g["prover"], g["time"])
    return hints


class Hints:
    """The ledger's entries, and for the units it lacks, the logs' winners."""

    def __init__(self, ledger, extra):
        self.ledger, self.extra = ledger, extra

    def get(self, name):
        """The unit's entry; without one, the same unit's under the other
        data model (the goals have the same names, the winners mostly too)."""
        for n in [name] + ["%s/%s" % (md, name.split("/", 1)[1]) for md in config.MACHDEPS
                           if "/" in name and not name.startswith(md + "/")]:
            e = self.ledger.get(n) or (self.extra.get(n) if self.extra else None)
            if e is not None and e.provers:
                return e
        return self.ledger.get(name)


def main(argv=None):
    args = parse_args(argv if argv is not None else sys.argv[1:])
    wall0, cpu0 = time.monotonic(), Cpu.now()
    for tool in ("frama-c", "why3", "z3", "cvc4", "gcc"):
        if shutil.which(tool) is None:
            log("proofs: %s not found (tools/install-deps test installs it)" % tool)
            return 2
    project = sources.Project(args.source_root, args.build_root, args.work)
    if not project.proven:
        log("proofs: no source in core/proven")
        return 2
    flags = sources.compile_flags(project)
    problems = []
    shutil.rmtree(project.work, ignore_errors=True)
    os.makedirs(project.work)
    static_checks(project, flags, problems)
    inv = units.Inventory(project, flags)
    inv.compute_keys()
    for msg in inv.problems:
        fail(problems, msg)
    ledger = ledger_mod.Ledger(project.ledger)
    for msg in ledger.problems:
        fail(problems, msg)
    stale = sorted(n for n in ledger.entries if n not in inv.by_name)
    key_t = time.monotonic() - wall0
    log("proofs: %d units (%s); keys computed in %.0f s" % (
        len(inv.units), ", ".join("%d %s" % (sum(1 for u in inv.units if u.kind == k), k)
                                 for k in ("function", "variant", "lemmas", "theorems",
                                           "theorem-lemmas", "integrator")), key_t))

    changed, failed_before, takeable = [], [], []
    for u in inv.units:
        e = ledger.get(u.name)
        if e is None or e.key != u.key:
            changed.append(u.name)
        elif not e.passing:
            failed_before.append(u.name)
        else:
            takeable.append(u.name)

    if args.mode == "keys":
        for u in sorted(inv.units, key=lambda u: u.name):
            e = ledger.get(u.name)
            state = ("not in the ledger" if e is None else
                     "key changed (ledger %s)" % e.key[:12] if e.key != u.key else
                     "ledger: %s, slice %d" % (e.verdict, e.slice))
            print("%s %-48s %s" % (u.key, u.name, state))
        for n in stale:
            print("%-64s %-48s stale: no such unit" % (ledger.entries[n].key, n))
        return 1 if problems or stale else 0

    audited = []
    if args.mode == "gate":
        for n in stale:
            fail(problems, "the ledger names unit %s, which no longer exists (a stale line: "
                           "proofs/run-proofs update removes it)" % n)
        count = ledger_mod.commit_count(project.src)
        choice = args.audit_slice
        if choice is None:
            if count is None:
                choice = "0"
                log("proofs: not a git checkout: no commit count, auditing slice 0")
            else:
                choice = str(count % config.AUDIT_SLICES)
        if choice == "all":
            audited = list(takeable)
        elif choice != "none":
            if not choice.isdigit() or int(choice) >= config.AUDIT_SLICES:
                log("proofs: --audit-slice must be 0..%d, all or none" % (config.AUDIT_SLICES - 1))
                return 2
            audited = ledger_mod.audit_sample(ledger, takeable, int(choice))
        forced = [n for n in args.audit_units.split(",") if n]
        unknown = [n for n in forced if n not in inv.by_name]
        if unknown:
            log("proofs: --audit-units names no unit: " + ", ".join(unknown))
            return 2
        audited = sorted(set(audited) | {n for n in forced if n in takeable})
        log("proofs: the ledger holds %d of the %d units' keys; %d changed or new, %d failed "
            "when last proved; audit: slice %s (%s commits), %d units re-proved cold: %s" % (
                len(takeable) + len(failed_before), len(inv.units), len(changed),
                len(failed_before), choice, count if count is not None else "no",
                len(audited), ", ".join(audited) or "none"))
        to_prove = sorted(set(changed) | set(failed_before) | set(audited))
    elif args.mode == "update":
        forced = [n for n in args.units.split(",") if n]
        unknown = [n for n in forced if n not in inv.by_name]
        if unknown:
            log("proofs: --units names no unit: " + ", ".join(unknown))
            return 2
        to_prove = sorted(set(changed) | set(failed_before) | set(forced))
        log("proofs: update: %d units changed or new, %d failed when last proved, %d stale "
            "lines to remove: proving %s" % (len(changed), len(failed_before), len(stale),
                                            ", ".join(to_prove) or "nothing"))
    else:
        to_prove = [u.name for u in inv.units]
        if not args.update_committed:
            for n in stale:
                fail(problems, "the ledger names unit %s, which no longer exists" % n)

    prove_units = [inv.by_name[n] for n in to_prove]
    extra = hints_from_logs(args.hints_from, inv) if args.hints_from else None
    planner = plan.Planner(project, inv, flags, Hints(ledger, extra), args)
    # The variants' named goals' times come from the unit of the variant's own
    # data model only (the ledger's, or this run's).
    jobs = planner.plan(prove_units)
    env = dict(os.environ, WHY3CONFIG=project.why3conf)
    log("proofs: %d Frama-C runs for %d units, %d at a time, %d prover jobs each, goal "
        "timeouts x%d" % (len(jobs), len(prove_units), args.processes, args.jobs, args.processes))
    run_pool(jobs, args.processes, env)

    results = judge.attribute(jobs, prove_units, inv.programs)
    for u, problem in planner.problems:
        results[u.name].verdict = "missed"
        results[u.name].summary = problem
        results[u.name].problems.append(problem)
    for r in results.values():
        if r.unit.kind != "variant":
            judge.judge_unit(r, inv)
    for r in results.values():
        if r.unit.kind == "variant" and r.verdict is None:
            judge.judge_variant(r, core_times(r.unit.variant, results, ledger), args.processes)
    for r in sorted(results.values(), key=lambda r: r.unit.name):
        for msg in r.problems:
            fail(problems, msg)

    views, status_counts = [], {}
    for u in sorted(inv.units, key=lambda u: u.name):
        e = ledger.get(u.name)
        r = results.get(u.name)
        if r is not None:
            status = "proved cold in this run"
            if u.name in audited:
                status = "ledger (key %s), audited" % u.key[:12]
                if (e.verdict, e.goals, e.smoke) != (r.verdict, len(r.goals), len(r.smoke)):
                    fail(problems, "%s: the audited verdict differs from the ledger's: the "
                                   "ledger says %s with %d goals and %d smoke tests (key %s), "
                                   "proved cold now: %s with %d goals and %d smoke tests" % (
                                       u.name, e.verdict, e.goals, e.smoke, u.key[:12],
                                       r.verdict, len(r.goals), len(r.smoke)))
            elif args.mode == "cold" and e is not None and e.key == u.key and \
                    (e.verdict, e.goals, e.smoke) != (r.verdict, len(r.goals), len(r.smoke)) \
                    and not args.update_committed:
                fail(problems, "%s: the ledger says %s with %d goals and %d smoke tests, the "
                               "cold run %s with %d and %d" % (
                                   u.name, e.verdict, e.goals, e.smoke, r.verdict,
                                   len(r.goals), len(r.smoke)))
            views.append(report.UnitView(u, result=r, status=status))
        else:
            status = "ledger (key %s), not audited this run" % u.key[:12]
            views.append(report.UnitView(u, entry=e, status=status))
        kind = ("proved cold" if r is not None and u.name not in audited else
                "audited" if r is not None else "from the ledger, not audited")
        status_counts[kind] = status_counts.get(kind, 0) + 1
        log("proofs: unit %-46s %s%s" % (u.name, status, "" if (r or e).passing else
                                         " (FAILED)" if r else " (ledger: %s)" % e.verdict))

    ok = not problems
    verdict = "PASS" if ok else "FAIL"
    wall, cpu = time.monotonic() - wall0, Cpu.now() - cpu0
    counts = ", ".join("%s %d" % (k, v) for k, v in sorted(status_counts.items()))
    if args.mode in ("gate", "cold"):
        paths = [os.path.join(project.work, "proof-report.md"),
                 os.path.join(project.work, "summary.txt")]
        report.write(paths, verdict, views, inv, jobs, wall, cpu, args, args.mode, counts)
        log("proofs: report: %s" % ", ".join(paths))
        if args.mode == "cold":
            if args.update_committed:
                for path, dest in zip(paths, [project.report, project.summary]):
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    shutil.copyfile(path, dest)
                    log("proofs: updated %s" % project.rel(dest))
                save_proof_scripts(project, inv, results)
                fresh = ledger_mod.Ledger(project.ledger)
                fresh.entries = {n: e for n, e in fresh.entries.items() if n in inv.by_name}
                for r in results.values():
                    fresh.record(r.entry())
                fresh.write()
                log("proofs: updated %s (%d units)" % (project.rel(project.ledger),
                                                       len(fresh.entries)))
            else:
                differences = report.compare(project.report, paths[0])
                for d in differences[:20]:
                    log("proofs:   " + d)
                if differences:
                    fail(problems, "docs/proof-report.md does not record this run (%d "
                                   "differences above; goals, verdicts and variants are "
                                   "compared, not timings): refresh it with proofs/run-proofs "
                                   "cold --update-committed" % len(differences))
                else:
                    log("proofs: docs/proof-report.md records this run: same functions, goal "
                        "counts per data model, verdicts and negative variants")
    if args.mode == "update":
        save_proof_scripts(project, inv, results)
        for n in stale:
            del ledger.entries[n]
        for r in results.values():
            ledger.record(r.entry())
        ledger.write()
        log("proofs: updated %s: %d lines written, %d stale removed" % (
            project.rel(project.ledger), len(results), len(stale)))
    ok = not problems
    wall, cpu = time.monotonic() - wall0, Cpu.now() - cpu0
    log("proofs: %s (%s): %d units; %s; %d Frama-C runs; wall %.1f s, CPU %.1f s" % (
        "PASS" if ok else "FAIL", args.mode, len(inv.units), counts, len(jobs), wall, cpu))
    if not ok:
        log("proofs: %d problems; the first ones:" % len(problems))
        for p in problems[:15]:
            log("proofs:   " + p)
    return 0 if ok else 1
