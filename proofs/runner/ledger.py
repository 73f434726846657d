"""proofs/ledger.txt: one line per proof unit, written by the runner only
after it proved the unit cold, and the audit slices.

    KEY UNIT VERDICT goals=N smoke=N cpu=S slice=K [provers=...] [failed=...]

VERDICT is "proved" or "failed" for a unit that proves, "caught" or
"missed" for a negative variant. provers= names the prover that won each
goal, which the next run tries first (prover:goal,goal@T,...;prover:...,
goals relative to the unit's function, @T the seconds it took when 1 s or
more); Qed's goals are counted, not listed. failed= names the goals a
variant failed."""
import math
import os
import re
import subprocess

from . import config

HEADER = """\
# The proof ledger of libhurray's proven core (proofs/README.md, "The ledger").
# One line per proof unit, written by proofs/run-proofs only after it proved
# the unit cold; the gate (meson compile -C BUILD proofs) re-proves the units
# whose key is not here and an audit slice of the others, and fails when a
# verdict it re-proves differs from this file's. Do not edit by hand.
# KEY UNIT VERDICT goals=N smoke=N cpu=SECONDS slice=K provers=... failed=...
"""
LINE = re.compile(r"^([0-9a-f]{64}) (\S+) (proved|failed|caught|missed)((?: \w+=\S*)*)$")
PASSING = ("proved", "caught")


class Entry:
    def __init__(self, key, unit, verdict, goals=0, smoke=0, cpu=0.0, slice_=0,
                 provers=None, failed=()):
        self.key, self.unit, self.verdict = key, unit, verdict
        self.goals, self.smoke, self.cpu, self.slice = goals, smoke, cpu, slice_
        self.provers = provers or {}  # goal (relative) -> (prover, seconds)
        self.failed = list(failed)

    @property
    def passing(self):
        return self.verdict in PASSING

    def line(self):
        fields = [self.key, self.unit, self.verdict, "goals=%d" % self.goals,
                  "smoke=%d" % self.smoke, "cpu=%.1f" % self.cpu, "slice=%d" % self.slice]
        if self.provers:
            fields.append("provers=" + encode_provers(self.provers))
        if self.failed:
            fields.append("failed=" + ",".join(self.failed))
        return " ".join(fields)


def encode_provers(provers):
    by = {}
    for goal, (prover, secs) in sorted(provers.items()):
        by.setdefault(prover, []).append(goal + ("@%.1f" % secs if secs >= 1.0 else ""))
    return ";".join("%s:%s" % (p, ",".join(gs)) for p, gs in sorted(by.items()))


def decode_provers(text):
    out = {}
    for group in filter(None, text.split(";")):
        prover, _, goals = group.partition(":")
        for g in filter(None, goals.split(",")):
            name, _, secs = g.partition("@")
            out[name] = (prover, float(secs) if secs else 0.0)
    return out


class Ledger:
    def __init__(self, path):
        self.path = path
        self.entries = {}
        self.problems = []  # malformed or duplicate lines: the gate fails on them
        self.exists = os.path.exists(path)
        if not self.exists:
            return
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                m = LINE.match(line)
                if not m:
                    self.problems.append("%s:%d: not a ledger line: %.120s" %
                                         (os.path.basename(path), number, line))
                    continue
                fields = dict(f.split("=", 1) for f in m.group(4).split())
                try:
                    e = Entry(m.group(1), m.group(2), m.group(3), int(fields.get("goals", 0)),
                              int(fields.get("smoke", 0)), float(fields.get("cpu", 0)),
                              int(fields.get("slice", 0)),
                              decode_provers(fields.get("provers", "")),
                              [x for x in fields.get("failed", "").split(",") if x])
                except ValueError as err:
                    self.problems.append("%s:%d: %s" % (os.path.basename(path), number, err))
                    continue
                if not 0 <= e.slice < config.AUDIT_SLICES:
                    self.problems.append("%s:%d: slice %d is not one of 0..%d" %
                                         (os.path.basename(path), number, e.slice,
                                          config.AUDIT_SLICES - 1))
                if e.unit in self.entries:
                    self.problems.append("%s:%d: a second line for unit %s" %
                                         (os.path.basename(path), number, e.unit))
                    continue
                self.entries[e.unit] = e

    def get(self, unit):
        return self.entries.get(unit)

    def write(self, path=None):
        with open(path or self.path, "w", encoding="utf-8") as f:
            f.write(HEADER)
            for name in sorted(self.entries):
                f.write(self.entries[name].line() + "\n")

    def record(self, entry):
        """Keeps the unit's slice (the audit's coverage holds only if a unit
        stays in its slice); a new unit goes to the slice with the least
        CPU time, so that every gate's audit costs about the same."""
        old = self.entries.get(entry.unit)
        if old is not None:
            entry.slice = old.slice
        else:
            load = [0.0] * config.AUDIT_SLICES
            for e in self.entries.values():
                load[e.slice] += max(e.cpu, 1.0)
            entry.slice = load.index(min(load))
        self.entries[entry.unit] = entry


def commit_count(src):
    """The number of commits on the branch (HEAD), or None outside git."""
    try:
        p = subprocess.run(["git", "-C", src, "rev-list", "--count", "HEAD"],
                           capture_output=True, text=True)
    except OSError:
        return None
    return int(p.stdout.strip()) if p.returncode == 0 and p.stdout.strip().isdigit() else None


def audit_sample(ledger, takeable, slice_no):
    """The units of takeable (names taken from the ledger) that slice_no
    re-proves: the whole slice, then the cheapest units of the next slices
    until the sample holds AUDIT_MIN_FRACTION of takeable. Every unit lies in
    exactly one slice, so the AUDIT_SLICES consecutive slices of any
    AUDIT_SLICES consecutive commits re-prove them all."""
    need = math.ceil(config.AUDIT_MIN_FRACTION * len(takeable))
    chosen = sorted(u for u in takeable if ledger.entries[u].slice == slice_no)
    for step in range(1, config.AUDIT_SLICES):
        if len(chosen) >= need:
            break
        nxt = (slice_no + step) % config.AUDIT_SLICES
        extra = sorted((u for u in takeable if ledger.entries[u].slice == nxt),
                       key=lambda u: (ledger.entries[u].cpu, u))
        chosen += extra[:need - len(chosen)]
    return sorted(chosen)
