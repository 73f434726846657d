"""Which goals of its mutated function a negative variant's run generates.

WP names a goal after its property: typed_FCT_[BEHAVIOR_]ensures[_N|_NAME]
[_partNN], typed_FCT_loop_invariant[_N]_preserved, typed_FCT_assert[_N],
typed_FCT_assert_rte_..., typed_FCT_[loop_]assigns.... From the goals a
variant names, this module derives WP options (-wp-bhv, -wp-prop) that
generate those goals and as few others as the names allow:

- every named goal an unnamed postcondition: the behaviors they belong to
  (WP's "default!" for the function's own) and @ensures;
- otherwise, per named goal: a named postcondition by its name (-wp-prop
  NAME), any other by its category (@ensures, @invariant, @assert);
- no selection (every goal of the function) when a named goal is an assigns
  clause, a run-time error assertion or a split part (_partNN) of anything but
  a postcondition: WP numbers such parts among the goals it generates, so a
  selection could give the named goal another goal's name.

The selected goals other than the named ones must prove as in the function's
unit; a mutation that breaks a goal outside the selection is left to that
goal's own unit, which proves the unmutated function."""
import re

ENSURES = re.compile(r"(?:(?P<bhv>\w+?)_)?ensures(?:_(?P<idx>\d+)|_(?P<name>(?!part\d+$)[a-z]\w*?))?"
                     r"(?:_part\d+)?")
CATEGORIES = [(re.compile(r"loop_invariant(?:_\d+)?_(?:preserved|established)"), "@invariant"),
              (re.compile(r"assert(?:_\d+)?"), "@assert")]


def relative(function, goal):
    """A goal's name without its function's prefix."""
    return goal[len(function) + 1:] if goal.startswith(function + "_") else goal


def variant_selection(function, named):
    """The WP options that select a variant's goals (a list, empty for every
    goal of the function)."""
    behaviors, props = set(), set()
    unnamed_ensures_only = True
    for goal in named:
        rel = relative(function, goal)
        m = ENSURES.fullmatch(rel)
        if m:
            if m.group("name"):
                props.add(m.group("name"))
                unnamed_ensures_only = False
            else:
                behaviors.add(m.group("bhv") or "default!")
                props.add("@ensures")
            continue
        category = next((c for pattern, c in CATEGORIES if pattern.fullmatch(rel)), None)
        if category is None:
            return []
        props.add(category)
        unnamed_ensures_only = False
    if not props:
        return []
    if unnamed_ensures_only:
        return ["-wp-bhv", ",".join(sorted(behaviors)), "-wp-prop", "@ensures"]
    return ["-wp-prop", ",".join(sorted(props))]
