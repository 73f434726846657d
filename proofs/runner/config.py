"""What is proved and how: the data models, the provers, the timeouts and the
WP options of every kind of run. A unit's key hashes the options its run is
given (units.py), so a change here re-proves the units it touches."""
import re

# Properties whose status may be "Considered valid" (taken as valid without a
# proof). Each entry: (function, property-kind, reason). Empty on purpose:
# the core calls no library function and declares nothing it does not define.
ALLOWED_CONSIDERED_VALID = []

# The data models the proof holds for, each pinned with -machdep: LP64
# (x86_64: Frama-C's default, pinned all the same) and ILP32 (x86_32: 32-bit
# size_t, long and pointers, the model of many safety-critical targets). Every
# goal is proved with both. The smoke tests run with the first only: what they
# look for, hypotheses that contradict each other, depends on the data model
# only through the range of size_t, which the contracts bound with the same
# SIZE_MAX expressions in both. A negative variant runs with the model its
# machdep: line names (default the first).
MACHDEPS = ["x86_64", "x86_32"]
DATA_MODELS = {"x86_64": "LP64", "x86_32": "ILP32"}

# Z3 and CVC4 (Debian 12 has no Alt-Ergo), through the pinned proofs/why3.conf.
PROVERS = ["z3", "cvc4"]
# The order in which WP tries them on a goal of a hinted run that has no
# recorded winner (a new goal of a changed function): in the first ledger Z3
# and CVC4 each won about half of the goals (1228 and 1208), but CVC4 won
# the slow ones (500 of the 590 s the winners took), where Z3 mostly runs to
# its timeout, so CVC4 goes first.
UNHINTED_ORDER = ["cvc4", "z3"]
# Why3's names of the provers, as WP writes them in session scripts and logs.
WHY3_NAME = {"z3": "Z3:4.8.12", "cvc4": "CVC4:1.8"}
LOG_NAME = {"Z3 4.8.12": "z3", "CVC4 1.8": "cvc4", "Qed": "qed", "Script": "script",
            "CFG": "cfg"}

WP_TIMEOUT_S = 10
# Functions whose goals need a longer prover timeout (seconds). A timeout
# costs time only when a goal fails: the run stops each goal at its first
# proof. The table functions' loops carry quantified invariants over memory
# that the loop writes. On a quiet machine their slowest goals take 8 to 22 s;
# the slowest of all, copy_table_handles' loop invariant (the handles decoded
# so far survive the store of the next), takes CVC4 about 30 s and took over
# 60 s in a CI run whose machine was slower, hence 180 s for it. Two lemmas
# that shortened it to 8 s were tried and dropped: a lemma is a hypothesis of
# every goal, and these made three goals of other functions time out at 60 s.
FUNCTION_TIMEOUTS = {
    "check_list_handles": 60,
    "check_table_handles": 60,
    "copy_table_handles": 180,
    "decode_one": 60,
    "hurray_buffer_table_decode": 60,
    # Sized from their slowest goal in the pool of a full run (both machdeps,
    # same load, same multiplied timeouts), at least four times it: twice the
    # slowdown a slower CI machine has shown (above). encode_table_handles:
    # 3.3 s (run of ed84c2e), 5.0 s (CI's run of 5dd31e8): the default.
    # hurray_buffer_table_decode_exact: 9.6 s and 10.6 s; 30.
    "hurray_buffer_table_decode_exact": 30,
    "hurray_buffer_table_encode": 60,
    # The IPC message decoder's stores carry the frames of *out, handles[]
    # and segments[] a field at a time through calls that write the others.
    # In the pool (the run of 0d8f607) the slowest took 13 to 15 s
    # (hurray_ipc_store_offer_message, CVC4) and 8 to 9 s (ipc_store_offer_buffers,
    # Z3); one of segments[] had timed out at 20 s under load by hand.
    "ipc_store_offer_buffers": 60,
    "hurray_ipc_store_offer_message": 60,
    # The message store's three stores of segments[] (its asserts 3, 4, 6)
    # take CVC4 6 to 8 s alone with -machdep x86_32 (2026-12-06), and the
    # decoder's null_argument ensures Z3 4 to 5 s after 1.4 s of Qed; both
    # failed at 20 s in a pool run beside other work (the first cold run of
    # the ledger). A timeout costs only when a goal fails; no variant
    # mutates either function.
    "ipc_store_message": 30,
    "hurray_ipc_message_decode": 30,
    # The network decoder's store carries the frame of handles[] through
    # net_store_fields (bp_table_decoded after the fields of *out are
    # written): it proved alone in the run of the net functions, and timed
    # out at 20 s in the full run of 7a87e3b (x86_64 and x86_32), and proved
    # at 60 s in CI's full run of 79005c9. Fields first, table last, was
    # tried: the nine fields' frame through the table's stores then timed
    # out at 60 s, worse.
    "net_store_message": 60,
}


def function_timeout(function):
    return FUNCTION_TIMEOUTS.get(function, WP_TIMEOUT_S)


# A negative variant proves, of its mutated function, the goals that its
# named goals' properties select (selection.py: their behavior and category,
# or their property's name): every other selected goal must prove as it does
# in the function's unit. The mutation changes that function's body only, and
# the goals it does not select are the function's own units' to prove.
#
# The named goals run at NEGATIVE_TIMEOUT_S, both provers, whatever the
# function's own timeout (a variant may raise it with a `timeout:` line for a
# slow named goal). Each named goal must have proved in the function's own
# unit within half of it (the variant's check, judge.py): its failure is then
# the mutation's doing and not a slow goal cut short. In the first ledger,
# every named goal took at most 1.3 s but three, in the variants that say
# timeout: 4 (2.0 s; 2.1 and 2.8 s); 2 s, multiplied by the 3 runs at a
# time, gives every other one at least twice its time (a goal WP proved in
# under a second counts as 1 s). At 10 s a goal, the
# named goals cost about 700 CPU s of a cold run, CVC4 running to the
# timeout on each (Z3 answers "unknown" at once).
NEGATIVE_TIMEOUT_S = 2


# The theorems of proofs/theorems/ (their functions and their lemmas) prove
# at this timeout, multiplied like the others. Their slowest goals took
# 6.2 s (lemma bp_bytes_high_half, CVC4, -machdep x86_32) and 3.3 s
# (bp_le32_of_bytes) alone on the idle 2-core machine; 30 s (60 s
# multiplied) keeps four times that at the slowdown a slower CI machine has
# shown. No negative variant runs them, so a long timeout costs nothing
# while every goal proves.
THEOREM_TIMEOUT_S = 30

# Smoke tests (a prover must NOT prove false from the hypotheses) stop at a
# resource limit, SMOKE_STEPS (Why3's step limit: CVC4's --rlimit, Z3's
# rlimit), the same on every machine and under any load. A smoke test passes
# only when both provers give up, and on WP's quantified memory model they
# rarely give up before their limit: the smoke tests cost their limit each.
# What they are for, a contradiction among the hypotheses, the smoke variants
# in proofs/negative/ (smoke-fails:) plant: a contradictory precondition that
# takes a case split over BP-ALIGN-1's 32 powers of two, and a branch a
# precondition makes unreachable; every run must catch them at this limit or
# the proof fails. Measured (2026-12-07, Frama-C 25, CVC4 1.8, Z3 4.8.12):
# CVC4 finds the planted contradiction in all 35 of its smoke tests from
# 38000 steps (34 at 36000, 26 at 33000, 3 at 30000); 50000 keeps 1.3 times
# that, and the count is deterministic: a change that moves what the planted
# fault needs past the limit fails the smoke variant, in the run that proves
# the change. The smoke tests cost their limit: the 34 of ipc_check_header
# took 20 CPU s at 60000 and 28 at 80000 (both provers), where the former 1 s
# wall-clock race cost about 1.5 CPU s a test in the pool and gave each
# prover only its share of a core there (about 0.5 CPU s: CVC4 near 45000
# steps, less on a busier machine). Z3 at the same step count stops within a
# tenth of a second: it answers the plain contradictions it finds at once
# (on both smoke variants, it failed no smoke test that CVC4 did not).
SMOKE_STEPS = 50000
# A wall-clock backstop only, never reached at the step limit (CVC4 at 50000
# steps takes under 1 CPU s): not multiplied by --processes.
SMOKE_TIMEOUT_S = 20
# Every property category but the smoke tests: a run given
# -wp-prop=SMOKE_ONLY with -wp-smoke-tests generates its functions' smoke
# tests and nothing else (checked: a smoke run that generates another goal
# fails the unit).
SMOKE_ONLY = "-" + ",-".join("@" + c for c in (
    "ensures", "assigns", "rte", "assert", "invariant", "variant", "requires",
    "complete_behaviors", "disjoint_behaviors", "terminates", "call"))

# Functions whose goals WP simplifies in runs of their own, with these
# options (Qed's simplifications only: what is proved is unchanged, every
# goal still goes to a prover unless Qed closes it). Branch pruning costs
# hurray_handle_fields_check 54 s of Qed per run (its rejected behavior is a
# nine-way case split over the model's 32 powers of two and the validity
# table); without it Qed takes 8 s, the provers prove the same 102 goals, and
# the function takes 22 s instead of 61 s (-machdep x86_32, measured alone).
# The other heavy functions were measured the same way and gain nothing.
FUNCTION_WP_OPTIONS = {
    "hurray_handle_fields_check": ["-wp-no-pruning"],
}
# Functions proved with WP's bit-shift tactic, in a run of their own: the
# tactic turns a shift by a constant into a multiplication by a power of two
# and the provers prove what it leaves (nothing is admitted). With -wp-auto,
# WP tries the provers one after the other on every goal before the tactic,
# which made the whole-core run five times slower when it applied to all
# functions; without it, Z3 and CVC4 race on each goal. The sub-goals the
# tactic leaves take under 0.3 s, hence the short timeout, not multiplied: a
# goal's provers failing before the tactic is this run's cost.
BIT_SHIFT_FUNCTIONS = ["load_le16", "load_le32", "load_le64"]
BIT_SHIFT_TIMEOUT_S = 2
AUTO_STRATEGY = ["-wp-auto", "wp:bitshift", "-wp-auto-depth", "12", "-wp-auto-width", "20"]

# Why3 stops a prover at its timeout in wall-clock time (measured: a goal that
# CVC4 proves in 3.6 s failed with a 6 s limit while other processes held the
# cores). The runner runs --processes Frama-C processes at once, each with
# --jobs provers, on --jobs cores: a prover then gets at least 1/processes of
# a core, so every goal timeout (negative variants included; not the smoke
# tests', nor the bit-shift run's) is multiplied by --processes and each
# prover keeps at least the CPU time it had alone.

# The kernel and RTE options of every run (and of the print that unit keys
# are computed from).
KERNEL_OPTIONS = ["-kernel-warn-key", "annot-error=abort", "-warn-unsigned-overflow",
                  "-warn-unsigned-downcast", "-warn-signed-downcast"]

# Requirement IDs (specs/): BP-, HO-, PL-, IPC-, NET-, CLI-, PY-, VER-.
REQ_ID = re.compile(r"\b(?:BP|HO|PL|IPC|NET|CLI|PY|VER)-[A-Z0-9]+-\d+(?:\.\.\d+)?\b")
FORBIDDEN_ACSL = [
    (re.compile(r"\badmit\b"), "admit"),
    (re.compile(r"\baxiom\b"), "axiom"),
    (re.compile(r"\baxiomatic\b"), "axiomatic block (undefined logic symbols)"),
    (re.compile(r"\bassume\b"), "assume"),
    (re.compile(r"\bcheck\b\s+(?:requires|ensures|assert|invariant|loop)"), "check-only property"),
    (re.compile(r"__FRAMAC__"), "__FRAMAC__ conditional (proven code would differ)"),
]

# The audit: every gate run re-proves cold one of AUDIT_SLICES slices of the
# units it could take from the ledger, the slice chosen by the number of
# commits on the branch, so that any AUDIT_SLICES consecutive commits
# re-prove every unit; a slice holds at least AUDIT_MIN_FRACTION of the units.
AUDIT_SLICES = 8
AUDIT_MIN_FRACTION = 0.15
