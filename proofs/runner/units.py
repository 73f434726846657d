"""The proof units and their keys.

A unit is what can be proven alone and recorded in the ledger:
  MACHDEP/FUNCTION        a contracted function of the core under one data
                          model: its goals, and with the first model its
                          smoke tests (the bit-shift functions, proved with
                          WP's tactic, are units like the others)
  MACHDEP/lemmas          the model's lemmas
  MACHDEP/integrator      proofs/integrator/ against the exported contracts
  MACHDEP/theorems        proofs/theorems/ against the exported contracts
  MACHDEP/theorem-lemmas  the theorems' lemmas
  variant/NAME            a negative variant of proofs/negative/
A unit's key is a SHA-256 of everything its verdict depends on: the text
Frama-C proves (normalized.py says which part of it), the options of its run
(data model, preprocessor flags, kernel and RTE warnings, provers, timeouts,
smoke settings), the variant's text for a variant, and the versions of
Frama-C, Why3, Z3 and CVC4 and the pinned why3.conf."""
import concurrent.futures
import os
import re
import subprocess

from . import config, normalized, selection, sources

# Changes whenever the runner changes how a unit is proved in a way its
# options below do not show: every key changes with it, so the ledger is
# proved again from scratch.
RUN_PROTOCOL = "units-1"


class Unit:
    def __init__(self, name, kind, machdep, functions=(), variant=None):
        self.name, self.kind, self.machdep = name, kind, machdep
        self.functions = list(functions)  # the functions whose goals are its own
        self.variant = variant
        self.key = None
        self.smoke = kind in ("function", "integrator", "theorems") and \
            machdep == config.MACHDEPS[0]

    @property
    def function(self):
        return self.functions[0] if self.functions else None

    def __repr__(self):
        return "Unit(%s)" % self.name


def tool_versions(project):
    out = []
    for cmd in (["frama-c", "-version"], ["why3", "--version"], ["z3", "--version"],
                ["cvc4", "--version"]):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
            out.append(" ".join(cmd) + ": " + (p.stdout + p.stderr).strip().split("\n")[0])
        except OSError as e:
            raise SystemExit("proofs: %s not found (%s): tools/install-deps test installs it"
                             % (cmd[0], e))
    with open(project.why3conf, encoding="utf-8") as f:
        out.append("why3.conf:\n" + f.read())
    return "\n".join(out)


def function_options(md, function, flags_text):
    """The options of a function's runs, as they decide its verdict (the
    multiplier of the timeouts, --processes, is not one: it keeps each
    prover's share of a core; see config)."""
    opts = ["machdep " + md, "cpp " + flags_text, "kernel " + " ".join(config.KERNEL_OPTIONS),
            "wp -wp -wp-rte", "provers " + ",".join(config.PROVERS)]
    if function in config.BIT_SHIFT_FUNCTIONS:
        opts += ["timeout %d" % config.BIT_SHIFT_TIMEOUT_S,
                 "auto " + " ".join(config.AUTO_STRATEGY)]
    else:
        opts += ["timeout %d" % config.function_timeout(function)]
    opts += ["options " + " ".join(config.FUNCTION_WP_OPTIONS.get(function, []))]
    if md == config.MACHDEPS[0]:
        opts += ["smoke steps %d, timeout %d, runs %s" % (
            config.SMOKE_STEPS, config.SMOKE_TIMEOUT_S, config.SMOKE_ONLY)]
    return "\n".join(opts)


class Inventory:
    """Every unit of the tree, with its key; the normalized programs; what
    was found wrong on the way (problems)."""

    def __init__(self, project, flags, machdeps=None):
        self.project, self.flags = project, flags
        self.machdeps = machdeps or list(config.MACHDEPS)
        self.problems = []
        p = project
        self.contracts = {}  # function -> (file, requirement IDs)
        for path in p.proven + p.headers + p.public_headers:
            for name, ids in sources.functions_with_contracts(path):
                self.contracts[name] = (p.rel(path), ids)
        self.integrator_fcts, self.theorem_fcts = [], []
        for paths, names in ((p.integrator, self.integrator_fcts),
                             (p.theorems, self.theorem_fcts)):
            for path in paths:
                for name, ids in sources.functions_with_contracts(path):
                    self.contracts[name] = (p.rel(path), ids)
                    names.append(name)
        self.lemmas = sources.declared_lemmas(p.proven + p.headers + [p.model])
        self.theorem_lemmas = sources.declared_lemmas(p.theorems)
        core = sorted(n for n in self.contracts
                      if n not in self.integrator_fcts + self.theorem_fcts)
        self.core_functions = core
        missing = [f for f in config.BIT_SHIFT_FUNCTIONS if f not in core]
        if missing:
            self.problems.append("BIT_SHIFT_FUNCTIONS names functions with no contract: " +
                                 ", ".join(missing))
        self.uncontracted()
        self.variants = []
        for vpath in p.variants:
            try:
                self.variants.append(sources.parse_variant(vpath))
            except (ValueError, OSError) as e:
                self.problems.append("negative variant %s: %s" % (p.rel(vpath), e))
        self.units = []
        for md in self.machdeps:
            self.units += [Unit("%s/%s" % (md, f), "function", md, [f]) for f in core]
            if self.lemmas:
                self.units.append(Unit("%s/lemmas" % md, "lemmas", md))
            if self.integrator_fcts:
                self.units.append(Unit("%s/integrator" % md, "integrator", md,
                                       sorted(self.integrator_fcts)))
            if self.theorem_fcts:
                self.units.append(Unit("%s/theorems" % md, "theorems", md,
                                       sorted(self.theorem_fcts)))
            if self.theorem_lemmas:
                self.units.append(Unit("%s/theorem-lemmas" % md, "theorem-lemmas", md))
        for v in self.variants:
            if v["machdep"] in self.machdeps or v["machdep"] not in config.MACHDEPS:
                self.units.append(Unit("variant/%s" % v["name"], "variant", v["machdep"],
                                       [v.get("function", "?")], v))
        self.by_name = {u.name: u for u in self.units}
        self.programs = {}

    def uncontracted(self):
        """Every function defined in core/proven has a contract right above
        its definition."""
        rx = re.compile(r"^(?:static\s+|inline\s+)*[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\s*"
                        r"\([^;{]*\)\s*\{", re.M)
        for path in self.project.proven:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for name in rx.findall(text):
                if name not in self.contracts and name not in ("if", "while", "for", "switch"):
                    self.problems.append("function %s (%s) has no contract right above its "
                                         "definition" % (name, self.project.rel(path)))

    def compute_keys(self):
        p = self.project
        self.roots = [("src", p.src), ("build", p.build)]
        self.versions = tool_versions(p)
        self.flags_text = normalized.path_free(" ".join(self.flags), *self.roots)
        os.makedirs(p.work, exist_ok=True)
        prints = []  # (where its Program goes, machdep, files, model, what)
        for md in sorted({u.machdep for u in self.units} & set(config.MACHDEPS)):
            prints.append((md, md, p.sources, p.model, "core"))
            for what, files in (("integrator", p.integrator), ("theorems", p.theorems)):
                self.programs[(md, what)] = None
                if files:
                    prints.append(((md, what), md, files, None, what))
        # Each print is a Frama-C parse of its own (about a second): all at once.
        with concurrent.futures.ThreadPoolExecutor(max(1, len(prints))) as pool:
            texts = [(at, pool.submit(normalized.print_program, md, files, self.flags, model,
                                      os.path.join(p.work, "print-%s-%s.c" % (md, what))))
                     for at, md, files, model, what in prints]
            for at, text in texts:
                self.programs[at] = normalized.Program(text.result())
        for u in self.units:
            u.key = self.key_of(u)

    def key_of(self, u):
        md, p, flags_text = u.machdep, self.project, self.flags_text
        if md not in config.MACHDEPS:  # a variant with an unknown machdep
            return normalized.digest(RUN_PROTOCOL, u.name)
        core = self.programs[md]
        if u.kind == "function":
            if u.function not in core.functions:
                self.problems.append("%s: function %s is not in Frama-C's print of the core" %
                                     (u.name, u.function))
                material = ""
            else:
                material = core.key_material(u.function)
            if u.function in config.BIT_SHIFT_FUNCTIONS:
                from .plan import scripts_of, session_dir
                for path in scripts_of(session_dir(p, md), u.function):
                    with open(path, encoding="utf-8") as f:
                        material += "\n== proof script %s\n%s" % (os.path.basename(path),
                                                                    f.read())
            opts = function_options(md, u.function, flags_text)
        elif u.kind == "lemmas":
            material = core.logic_material() + "\nlemmas " + " ".join(self.lemmas)
            opts = function_options(md, None, flags_text) + "\nrun @lemma"
        elif u.kind in ("integrator", "theorems"):
            material = normalized.SID_COMMENT.sub("", self.programs[(md, u.kind)].text)
            timeout = config.THEOREM_TIMEOUT_S if u.kind == "theorems" else config.WP_TIMEOUT_S
            opts = function_options(md, None, flags_text) + \
                "\nrun %s timeout %d fcts %s" % (u.kind, timeout, ",".join(u.functions))
        elif u.kind == "theorem-lemmas":
            material = self.programs[(md, "theorems")].logic_material() + "\nlemmas " + \
                " ".join(self.theorem_lemmas)
            opts = function_options(md, None, flags_text) + \
                "\nrun theorem-lemmas timeout %d" % config.THEOREM_TIMEOUT_S
        else:  # a negative variant
            v = u.variant
            with open(v["path"], encoding="utf-8") as f:
                vtext = f.read()
            material = core.key_material(v.get("function", ""), v["with"]) \
                if v.get("function") in core.functions else ""
            opts = function_options(md, v.get("function"), flags_text) + \
                "\nvariant named goals timeout %d, selection %s\n%s" % (
                    config.NEGATIVE_TIMEOUT_S, "" if v["smoke"] else
                    " ".join(selection.variant_selection(v.get("function", ""), v["named"])),
                    vtext)
        material = normalized.path_free(material, *self.roots)
        return normalized.digest(RUN_PROTOCOL, self.versions, opts, material)
