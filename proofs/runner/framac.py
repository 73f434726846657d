"""Frama-C commands, the pool that runs them, and what their output says.

A goal run is "hinted": each goal whose winning prover the ledger records
gets a WP session script naming that prover, and WP (-wp-prover tip) tries
it first, at the goal's own timeout, and the other prover only if it fails;
a goal without a script gets the provers in UNHINTED_ORDER, one after the
other. Nothing is taken from a cache (-wp-cache none): a script names a
prover to try, never a result. WP rewrites the scripts with the prover that
won (-wp-time-margin large: every proof is kept), which is how the runner
learns each goal's winner. A smoke run lets both provers race on each smoke
test, each stopped at the smoke step limit (config.SMOKE_STEPS); a smoke run
proves nothing else, so the limit reaches no other goal."""
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import tempfile
import time

from . import config


def log(msg):
    print(msg, flush=True)


def quote_flags(flags):
    return " ".join(shlex.quote(f) for f in flags)


def base_command(md, files, flags, model, jobs):
    cpp = quote_flags(flags + (["-include", model] if model else []))
    return (["frama-c", "-machdep", md, "-cpp-extra-args=" + cpp] + files +
            config.KERNEL_OPTIONS + ["-wp", "-wp-rte", "-wp-par", str(jobs), "-wp-cache", "none"])


def hinted_options(session, timeout, scale):
    return ["-wp-prover", "tip," + ",".join(config.UNHINTED_ORDER), "-wp-session", session,
            "-wp-time-margin", "1000000", "-wp-time-extra", "0",
            "-wp-timeout", str(timeout * scale)]


def function_timeouts(functions, scale, every=False):
    """-wp-fct-timeout for the functions with a timeout of their own (every:
    for all of them, when -wp-timeout is not the default)."""
    pairs = ["%s:%d" % (f, config.function_timeout(f) * scale) for f in sorted(functions)
             if every or f in config.FUNCTION_TIMEOUTS]
    return ["-wp-fct-timeout", ",".join(pairs)] if pairs else []


SMOKE_RUN = ["-wp-prover", ",".join(config.PROVERS), "-wp-smoke-tests",
             "-wp-steps", str(config.SMOKE_STEPS),
             "-wp-smoke-timeout", str(config.SMOKE_TIMEOUT_S), "-wp-prop=" + config.SMOKE_ONLY]


def write_scripts(session, hints, both_at_timeout=()):
    """One WP session script per hinted goal (full goal name without
    "typed_"): the recorded winner, no time (so the goal keeps its own
    timeout). A goal in both_at_timeout lists both provers with a time: WP
    then gives each the run's -wp-timeout (a negative variant's named goals)."""
    d = os.path.join(session, "script")
    os.makedirs(d, exist_ok=True)
    for goal, prover in hints.items():
        if prover not in config.WHY3_NAME:
            continue
        alts = [{"prover": config.WHY3_NAME[prover], "verdict": "valid"}]
        with open(os.path.join(d, goal + ".json"), "w", encoding="utf-8") as f:
            json.dump(alts, f)
    for goal in both_at_timeout:
        first = hints.get(goal, config.UNHINTED_ORDER[0])
        order = [first] + [p for p in config.PROVERS if p != first]
        alts = [{"prover": config.WHY3_NAME[p], "verdict": "valid", "time": 0.1}
                for p in order if p in config.WHY3_NAME]
        with open(os.path.join(d, goal + ".json"), "w", encoding="utf-8") as f:
            json.dump(alts, f)


def script_winner(session, goal):
    """(prover, seconds) of the first valid alternative of the goal's saved
    script; ("script", s) for a tactic; None without a valid one."""
    path = os.path.join(session, "script", goal + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            alts = json.load(f)
    except (OSError, ValueError):
        return None
    why3 = {v: k for k, v in config.WHY3_NAME.items()}
    for a in alts:
        if "tactic" in a:
            return ("script", 0.0)
        if a.get("verdict") == "valid" and a.get("prover") in why3:
            return (why3[a["prover"]], float(a.get("time", 0.0)))
    return None


GOAL_LINE = re.compile(r"^\[wp\] \[([^\]]+)\] (Goal|Smoke-test) (\S+)(?: : (\S+))?(.*)$")
PROVED_LINE = re.compile(r"^\[wp\] Proved goals:\s+(\d+) / (\d+)")
# A prover's time as WP prints it: "(850ms)", "(4.2s)", "(1'03s)" or "(1')".
PROVER_TIME = re.compile(r"\((?:(\d+)')?(?:(\d+(?:\.\d+)?)(ms|s))?\)")
# Any warning of Frama-C or a plug-in fails the run (the kernel's, RTE's, WP's).
WARNING_LINE = re.compile(r"^\[[\w:-]+\] (?:[^\n]*: )?[Ww]arning")


def prover_seconds(rest):
    """The prover's time in the tail of a goal line (Qed's time excluded)."""
    t = None
    for part in re.findall(r"\([^)]*\)", rest):
        m = PROVER_TIME.fullmatch(part)
        if m and (m.group(1) or m.group(2)):
            v = float(m.group(1) or 0) * 60
            if m.group(2):
                v += float(m.group(2)) / (1000 if m.group(3) == "ms" else 1)
            t = v
    return t or 0.0


def parse_wp(output, session=None):
    """The run's goals: name (without "typed_"), kind, status, the prover
    that proved it (qed, z3, cvc4, script, cfg; for a smoke test "passed" or
    "failed") and its time; and WP's "Proved goals" line."""
    goals = []
    proved = total = None
    for line in output.splitlines():
        m = GOAL_LINE.match(line)
        if m:
            tag, kind, name, status, rest = m.groups()
            name = name[len("typed_"):] if name.startswith("typed_") else name
            g = {"kind": kind, "name": name, "status": status or "", "tag": tag,
                 "prover": config.LOG_NAME.get(tag, tag.lower()),
                 "time": prover_seconds(rest)}
            if kind == "Smoke-test":
                g["status"] = "Passed" if tag == "Passed" else "Failed"
                # WP prints a failed smoke test once for each prover that
                # proved false, so a second line may follow the first (or
                # not, when the race ended first): one smoke test, failed
                # when any of its lines says so.
                seen = next((x for x in goals if x["kind"] == kind and x["name"] == name), None)
                if seen is not None:
                    if g["status"] == "Failed":
                        seen.update(status="Failed", tag=tag)
                    continue
            elif tag == "Script" and session:
                won = script_winner(session, name) if status == "Valid" else None
                if won:
                    g["prover"], g["time"] = won
            goals.append(g)
        m = PROVED_LINE.match(line)
        if m:
            proved, total = int(m.group(1)), int(m.group(2))
    return goals, proved, total


class Job:
    """One Frama-C run of the pool: its command, the units it proves (all or
    part of), then its result."""

    def __init__(self, name, kind, machdep, units, cost, work):
        self.name, self.kind, self.machdep = name, kind, machdep
        self.units, self.cost = units, cost
        self.cwd = tempfile.mkdtemp(prefix="run-%s-" % re.sub(r"\W", "_", name), dir=work)
        self.session = os.path.join(self.cwd, "session")
        self.csv = os.path.join(work, "properties-%s.csv" % name)
        self.log = os.path.join(work, "frama-c-%s.log" % name)
        self.cmd = None
        self.functions = []  # the -wp-fct list (owners of goals)
        self.rc, self.out, self.wall, self.cpu = None, "", 0.0, 0.0
        self.goals, self.proved, self.total = [], None, None
        self.named_timeout = None  # a variant: the timeout its named goals ran at

    def finish(self):
        self.goals, self.proved, self.total = parse_wp(self.out, self.session)


def run(cmd, cwd, env):
    """Runs cmd; returns its exit status, its output (stdout, then stderr) and
    the CPU seconds of it and of the processes it waited for (the provers),
    from its own wait4, so that runs in parallel threads are counted apart."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=err)
        out = p.stdout.read()
        p.stdout.close()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        out += err.read()
    return (p.returncode, out.decode("utf-8", errors="replace"),
            usage.ru_utime + usage.ru_stime)


def run_pool(jobs, processes, env):
    """Runs the jobs, `processes` at a time, the costliest first (the longest
    runs start early, the short ones fill the gaps at the end)."""
    t0 = time.monotonic()

    def one(job):
        start = time.monotonic()
        job.rc, job.out, job.cpu = run(job.cmd, job.cwd, env)
        job.wall = time.monotonic() - start
        with open(job.log, "w", encoding="utf-8") as f:
            f.write(" ".join(shlex.quote(c) for c in job.cmd) + "\n\n" + job.out)
        job.finish()
        log("proofs: %-44s done in %4.0f s, CPU %4.0f s (at %4.0f s)" %
            (job.name, job.wall, job.cpu, time.monotonic() - t0))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, processes)) as pool:
        for f in [pool.submit(one, j) for j in sorted(jobs, key=lambda j: -j.cost)]:
            f.result()
