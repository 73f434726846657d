"""Which Frama-C runs prove a set of units. Function units are batched into
runs of about BATCH_CPU_S seconds of CPU (one Frama-C process parses every
file, about 2 s, so a run per function would cost more than its goals), the
costliest first, so that the pool keeps both cores busy to the end; the
smoke tests of the first data model run in smoke runs of their own."""
import math
import os
import re

from . import config, framac, selection, sources

BATCH_CPU_S = 200
DEFAULT_COST_S = 30.0
SMOKE_COST_S = 0.6  # a passing smoke test: both provers to the step limit, in the pool


def session_dir(project, md):
    """The committed WP proof scripts of the bit-shift functions' goals."""
    return os.path.join(project.src, "proofs", "sessions", md)


def scripts_of(session, function):
    d = os.path.join(session, "script")
    try:
        names = sorted(os.listdir(d))
    except OSError:
        return []
    return [os.path.join(d, n) for n in names
            if n.endswith(".json") and re.match(r"%s(?:_\d+)?_" % re.escape(function), n)]


def copy_scripts(src_session, dest_session, function):
    os.makedirs(os.path.join(dest_session, "script"), exist_ok=True)
    for path in scripts_of(src_session, function):
        with open(path, encoding="utf-8") as f, open(
                os.path.join(dest_session, "script", os.path.basename(path)), "w",
                encoding="utf-8") as g:
            g.write(f.read())


def relative_prefix(unit):
    return unit.function + "_" if unit.kind == "function" else ""


def hints_of(entry, prefix):
    """{goal (full name without "typed_"): prover} from a ledger entry."""
    if entry is None:
        return {}
    return {prefix + g: p for g, (p, _) in entry.provers.items()}


def costs(entry, unit):
    """(goal runs' CPU, smoke runs' CPU) expected for a unit."""
    if entry is None:
        return DEFAULT_COST_S, (DEFAULT_COST_S if unit.smoke else 0.0)
    smoke = min(entry.cpu, SMOKE_COST_S * entry.smoke) if unit.smoke else 0.0
    return max(entry.cpu - smoke, 1.0), smoke


def lpt(items, bins):
    """Longest processing time first: items (cost, x) into bins groups."""
    groups = [[] for _ in range(max(1, bins))]
    load = [0.0] * len(groups)
    for cost, x in sorted(items, key=lambda t: (-t[0], str(t[1]))):
        i = load.index(min(load))
        groups[i].append(x)
        load[i] += cost
    return [(load[i], g) for i, g in enumerate(groups) if g]



def per_file(files, names, declared=None):
    """(tag, file, its names) for each file that holds some of `names`: the
    theorems and their lemmas run one Frama-C run per file, because WP makes
    every lemma of a run a hypothesis of every goal of the run. Measured:
    proofs/theorems/table_check.c's lemmas, in one run with round_trip.c,
    took decode_is_encoding's size_decoded from 1.5 to 7 s (CVC4, x86_32).
    The tag is empty for the first file, so a lone file keeps its run's name."""
    declared = declared or (lambda paths: [n for n, _ in sources.functions_with_contracts(
        paths[0])])
    out = []
    for path in files:
        mine = [n for n in declared([path]) if n in names]
        if mine:
            tag = "" if not out else "-" + os.path.splitext(os.path.basename(path))[0]
            out.append((tag, path, mine))
    return out

class Planner:
    def __init__(self, project, inventory, flags, ledger, args):
        self.p, self.inv, self.flags, self.ledger = project, inventory, flags, ledger
        self.jobs_n, self.processes = args.jobs, args.processes
        self.scale = args.processes
        self.jobs, self.problems = [], []

    def entry(self, unit_name):
        return self.ledger.get(unit_name) if self.ledger else None

    def job(self, name, kind, md, units, cost):
        j = framac.Job(name, kind, md, units, cost, self.p.work)
        self.jobs.append(j)
        return j

    def finish(self, j, cmd, functions=()):
        j.functions = list(functions)
        j.cmd = cmd + ["-then", "-report", "-report-csv", j.csv]

    def hints(self, u):
        return hints_of(self.entry(u.name), relative_prefix(u))

    def hinted(self, u):
        """A unit the ledger knows: its goals' winners, or none when Qed
        proved every goal (a goal that now needs a prover gets them in
        UNHINTED_ORDER). Only a unit the ledger lacks races its provers."""
        return bool(self.hints(u)) or self.entry(u.name) is not None

    def goal_job(self, name, kind, md, units, cost, files, model, timeout, extra,
                 functions=()):
        """The units' goals: hinted when the ledger knows their winners (WP
        tries each goal's winner first), else the provers racing on each goal
        (a new unit: the race's winners go into the ledger)."""
        hints = {}
        for u in units:
            hints.update(self.hints(u))
        j = self.job(name, kind, md, units, cost)
        cmd = framac.base_command(md, files, self.flags, model, self.jobs_n)
        if hints:
            framac.write_scripts(j.session, hints)
            cmd += framac.hinted_options(j.session, timeout, self.scale)
        else:
            cmd += ["-wp-prover", ",".join(config.PROVERS),
                    "-wp-timeout", str(timeout * self.scale)]
        self.finish(j, cmd + framac.function_timeouts(functions, self.scale) + extra,
                    functions)
        return j

    def smoke_job(self, name, kind, md, units, cost, files, model, extra, functions,
                  flags=None):
        j = self.job(name, kind, md, units, cost)
        cmd = (framac.base_command(md, files, flags or self.flags, model, self.jobs_n) +
               framac.SMOKE_RUN + ["-wp-fct", ",".join(functions)] + extra)
        self.finish(j, cmd, functions)
        return j

    def plan(self, units):
        p, first = self.p, config.MACHDEPS[0]
        for md in config.MACHDEPS:
            mine = [u for u in units if u.machdep == md and u.kind != "variant"]
            fns = [u for u in mine if u.kind == "function"]
            plain = [u for u in fns if u.function not in config.FUNCTION_WP_OPTIONS and
                     u.function not in config.BIT_SHIFT_FUNCTIONS]
            hinted = [u for u in plain if self.hinted(u)]
            racing = [u for u in plain if not self.hinted(u)]
            for mode, group_units in (("goals", hinted), ("race", racing)):
                goal_items = [(costs(self.entry(u.name), u)[0], u) for u in group_units]
                total = sum(c for c, _ in goal_items)
                bins = max(self.processes, math.ceil(total / BATCH_CPU_S)) if goal_items else 0
                for i, (cost, group) in enumerate(lpt(goal_items, bins)):
                    fcts = sorted(u.function for u in group)
                    self.goal_job("%s-%s-%d" % (md, mode, i + 1), "goals", md, group, cost,
                                  p.sources, p.model, config.WP_TIMEOUT_S,
                                  ["-wp-fct", ",".join(fcts)], fcts)
            if md == first:
                smoke_items = [(costs(self.entry(u.name), u)[1], u) for u in plain]
                total = sum(c for c, _ in smoke_items)
                bins = max(self.processes, math.ceil(total / BATCH_CPU_S)) if smoke_items else 0
                for i, (cost, group) in enumerate(lpt(smoke_items, bins)):
                    fcts = sorted(u.function for u in group)
                    self.smoke_job("%s-smoke-%d" % (md, i + 1), "smoke", md, group, cost,
                                   p.sources, p.model, [], fcts)
            for u in fns:
                if u.function not in config.FUNCTION_WP_OPTIONS:
                    continue
                g, s = costs(self.entry(u.name), u)
                opts = config.FUNCTION_WP_OPTIONS[u.function]
                self.goal_job("%s-%s" % (md, u.function), "goals", md, [u], g,
                              p.sources, p.model, config.WP_TIMEOUT_S,
                              ["-wp-fct", u.function] + opts, [u.function])
                if u.smoke:
                    self.smoke_job("%s-%s-smoke" % (md, u.function), "smoke", md, [u], s,
                                   p.sources, p.model, opts, [u.function])
            for u in fns:
                if u.function in config.BIT_SHIFT_FUNCTIONS:
                    self.bit_shift_jobs(u)
            for u in mine:
                if u.kind == "lemmas":
                    self.goal_job("%s-lemmas" % md, "lemmas", md, [u],
                                  costs(self.entry(u.name), u)[0], p.sources, p.model,
                                  config.WP_TIMEOUT_S, ["-wp-prop", "@lemma"])
                elif u.kind in ("integrator", "theorems"):
                    files = p.integrator if u.kind == "integrator" else p.theorems
                    timeout = config.THEOREM_TIMEOUT_S if u.kind == "theorems" else \
                        config.WP_TIMEOUT_S
                    g, s = costs(self.entry(u.name), u)
                    for tag, path, fcts in per_file(files, u.functions):
                        share = len(fcts) / len(u.functions)
                        self.goal_job("%s-%s%s" % (md, u.kind, tag), u.kind, md, [u], g * share,
                                      [path], None, timeout, ["-wp-fct", ",".join(fcts)])
                        if u.smoke:
                            self.smoke_job("%s-%s%s-smoke" % (md, u.kind, tag), "smoke", md, [u],
                                           s * share, [path], None, [], fcts)
                elif u.kind == "theorem-lemmas":
                    g = costs(self.entry(u.name), u)[0]
                    for tag, path, lemmas in per_file(p.theorems, self.inv.theorem_lemmas,
                                                      sources.declared_lemmas):
                        self.goal_job("%s-theorem-lemmas%s" % (md, tag), "theorem-lemmas", md, [u],
                                      g * len(lemmas) / len(self.inv.theorem_lemmas), [path], None,
                                      config.THEOREM_TIMEOUT_S, ["-wp-prop", ",".join(lemmas)])
        for u in units:
            if u.kind == "variant":
                self.plan_variant(u)
        return self.jobs

    def bit_shift_jobs(self, u):
        """WP's bit-shift tactic (-wp-auto): the committed proof scripts of the
        function's goals (proofs/sessions/, which WP replays: the tactic is
        applied again and the provers prove what it leaves, nothing is taken
        as proved), the search where a script no longer applies; smoke tests
        in a smoke run with the same strategy."""
        p, md = self.p, u.machdep
        g, s = costs(self.entry(u.name), u)
        j = self.job("%s-%s" % (md, u.function), "bit-shift", md, [u], g)
        copy_scripts(session_dir(p, md), j.session, u.function)
        cmd = (framac.base_command(md, p.sources, self.flags, p.model, self.jobs_n) +
               framac.hinted_options(j.session, config.BIT_SHIFT_TIMEOUT_S, 1) +
               ["-wp-fct", u.function] + config.AUTO_STRATEGY)
        self.finish(j, cmd, [u.function])
        if u.smoke:
            self.smoke_job("%s-%s-smoke" % (md, u.function), "smoke", md, [u], s,
                           p.sources, p.model, config.AUTO_STRATEGY, [u.function])

    def plan_variant(self, u):
        """The mutated function alone, in a copy of its file: its goals hinted
        with its own unit's winners; the goals the variant names at the
        negative timeout, both provers; a smoke variant's smoke tests in a
        smoke run like the core's."""
        p, v, md = self.p, u.variant, u.machdep
        text, problem = sources.mutate(p, v)
        if problem:
            self.problems.append((u, problem))
            return
        fct = v["function"]
        target = os.path.join(p.src, v["file"])
        own = self.entry("%s/%s" % (md, fct))
        cost = sum(costs(own, u)) if own else DEFAULT_COST_S
        name = "variant-%s" % v["name"]
        j = self.job(name, "variant", md, [u], cost)
        mutated = os.path.join(j.cwd, os.path.basename(target))
        with open(mutated, "w", encoding="utf-8") as f:
            f.write(text)
        files = [mutated if f == target else f for f in p.sources]
        # The mutated copy lives elsewhere: its own folder first for "..." includes.
        flags = ["-I" + os.path.dirname(target)] + self.flags
        opts = ["-wp-fct", fct] + config.FUNCTION_WP_OPTIONS.get(fct, [])
        if fct in config.BIT_SHIFT_FUNCTIONS:
            cmd = (framac.base_command(md, files, flags, p.model, self.jobs_n) +
                   ["-wp-prover", ",".join(config.PROVERS),
                    "-wp-timeout", str(config.BIT_SHIFT_TIMEOUT_S),
                    "-wp-smoke-timeout", str(config.SMOKE_TIMEOUT_S)] + opts +
                   (["-wp-smoke-tests"] if v["smoke"] else []) + config.AUTO_STRATEGY)
            self.finish(j, cmd, [fct])
            return
        hints = hints_of(self.entry("%s/%s" % (md, fct)), fct + "_")
        cmd = framac.base_command(md, files, flags, p.model, self.jobs_n)
        if hints:
            named = [] if v["smoke"] else list(v["named"])
            framac.write_scripts(j.session, hints, named)
            timeout = config.function_timeout(fct) if v["smoke"] else v["timeout"]
            cmd += framac.hinted_options(j.session, timeout, self.scale)
            j.named_timeout = timeout
        else:  # no winners known: the provers race, the named goals at the function's timeout
            cmd += ["-wp-prover", ",".join(config.PROVERS),
                    "-wp-timeout", str(config.function_timeout(fct) * self.scale)]
            j.named_timeout = config.function_timeout(fct)
        cmd += framac.function_timeouts([fct], self.scale, every=True) + opts
        if not v["smoke"]:  # the goals its named goals select (selection.py)
            cmd += selection.variant_selection(fct, v["named"])
        self.finish(j, cmd, [fct])
        if v["smoke"]:
            s = self.job(name + "-smoke", "variant-smoke", md, [u], own.smoke * SMOKE_COST_S
                         if own else DEFAULT_COST_S)
            cmd = (framac.base_command(md, files, flags, p.model, self.jobs_n) +
                   framac.SMOKE_RUN + opts)
            self.finish(s, cmd, [fct])
