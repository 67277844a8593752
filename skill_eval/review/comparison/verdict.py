"""One verdict per skill x model, in one vocabulary, with the rule that decided it.

benchmark.json keeps the verdict (pass / fail / undecided / error) and ``decided_by``, the rule
that decided it; every report (console, benchmark.md, summary.md, the review page, JUnit,
GitHub annotations) says it with :func:`verdict_text`, so the words are the same everywhere.
The rules, the first that applies wins (docs/statistics.md, "Which rule decides"):

1. ``errors``: a run could not run (adapter error or timeout): error.
2. ``required_checks``: a with-skill run failed a required check: fail, said "check failed"
   (the skill's behaviour broke, whatever the lift).
3. ``not_run``: runs not run yet (outside --shard/--only, or not started): undecided.
4. ``sequential`` (until decided): under ``run --until-decided`` (the adaptive block's
   ``decides``), its decision's pass / fail / undecided is the verdict; the fixed-sample p is a detail.
   A plain run of a suite with an ``adaptive:`` key shows the decision beside the verdict.
5. ``minimum_lift`` (``minimum_lift_holm`` under ``gate: holm``): the mean lift against the
   suite's minimum_lift: pass or fail. A pass whose lift the sign-flip test does not call
   significant (p > 0.05, or too few cases moved to tell) is a pass *on the estimate*: its words
   say so ("pass on the estimate; not significant yet (p=0.062, 6 cases); `--until-decided`
   settles it") and no report shows it as a plain pass; the exit code is a pass's (0).
   ``minimum_lift_decided`` under ``gate: decided``: such a lift is ``undecided`` (exit 1).
6. ``checks_only``: no minimum_lift: every required check passed: pass.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

WORDS = ("pass", "fail", "undecided", "error")
RULES = ("errors", "required_checks", "not_run", "sequential", "minimum_lift", "minimum_lift_holm",
         "minimum_lift_decided", "checks_only")
RULE_NAMES = {"errors": "runs errored", "required_checks": "required checks", "not_run": "runs not run",
              "sequential": "until decided", "minimum_lift": "minimum lift",
              "minimum_lift_holm": "minimum lift, gate: holm",
              "minimum_lift_decided": "minimum lift, gate: decided", "checks_only": "required checks"}
ESTIMATE = "pass on the estimate"  # a pass by a lift the statistics do not call significant yet
SIGNIFICANCE = 0.05
_EPS = 1e-12
_ARMS = ("with_skill", "without_skill")


def _arms(bench: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [bench["variants"][v] for v in _ARMS]


def _with_failed(bench: Mapping[str, Any]) -> int:
    """With-skill runs that were graded and failed a required check."""
    w = bench["variants"]["with_skill"]
    return int(w["graded"]) - int(w["passed"])


def decide(bench: Mapping[str, Any], gate: str = "none") -> tuple[str, str]:
    """(verdict, decided_by) from a benchmark's own figures (see the module's rules)."""
    if any(a["errors"] for a in _arms(bench)):
        return "error", "errors"
    if _with_failed(bench):
        return "fail", "required_checks"
    if any(a["not_run"] for a in _arms(bench)):
        return "undecided", "not_run"
    until_decided = bench.get("adaptive")
    if isinstance(until_decided, Mapping) and until_decided.get("decides"):
        return str(until_decided["decision"]), "sequential"
    lift = bench["lift"]
    if lift.get("minimum_lift") is None:
        return "pass", "checks_only"
    if gate == "decided":
        if not lift.get("met"):
            return "fail", "minimum_lift_decided"
        return ("pass" if lift.get("significant") else "undecided"), "minimum_lift_decided"
    name = "minimum_lift_holm" if gate == "holm" else "minimum_lift"
    return ("pass" if lift.get("met") else "fail"), name


def on_estimate(bench: Mapping[str, Any]) -> bool:
    """A pass by the minimum lift whose lift the sign-flip test does not call significant: the
    estimate met the bar, the evidence does not yet say the skill helps."""
    return (bench.get("verdict") == "pass" and rule(bench) == "minimum_lift"
            and not bench["lift"].get("significant"))


def settle(bench: MutableMapping[str, Any], gate: str = "none") -> None:
    """Set the table's ``verdict`` and ``decided_by``: after its lift (and, where there is one,
    its until-decided decision or its Holm-adjusted p under ``gate: holm``) is known."""
    bench["verdict"], bench["decided_by"] = decide(bench, gate)


# ---- the words -----------------------------------------------------------------------------

def _pp(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} pp"


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _n(n: int, word: str) -> str:
    return f"{n:,} {word if n == 1 else word + 's'}"


def rule(bench: Mapping[str, Any]) -> str:
    """The table's ``decided_by``; a table written before it existed (its inputs unchanged
    since) is decided again."""
    return str(bench.get("decided_by") or decide(bench)[1])


def label(bench: Mapping[str, Any]) -> str:
    """The verdict's word as shown: "check failed" where a required check decided it, "pass on
    the estimate" where the lift met the bar without being significant."""
    if rule(bench) == "required_checks":
        return "check failed"
    if on_estimate(bench):
        return ESTIMATE
    return str(bench["verdict"])


def _not_significant(lift: Mapping[str, Any]) -> str:
    p = lift.get("p_value")
    return (f"not significant yet (p={'n/a' if p is None else _p(p)}, {_n(int(lift['cases']), 'case')}); "
            "`--until-decided` settles it")


def evidence(bench: Mapping[str, Any]) -> str:
    """Said right after an estimate-pass's label: ``; not significant yet (p=0.062, 6 cases);
    `--until-decided` settles it`` (empty for every other verdict)."""
    return f"; {_not_significant(bench['lift'])}" if on_estimate(bench) else ""


def headline(bench: Mapping[str, Any]) -> str:
    """The label with its evidence: what a report shows where it shows a verdict's word."""
    return label(bench) + evidence(bench)


def css_class(bench: Mapping[str, Any]) -> str:
    """The review page's colour for the verdict: an estimate-pass is not drawn as a pass."""
    return "estimate" if on_estimate(bench) else str(bench["verdict"])


def _interval(a: Mapping[str, Any]) -> str:
    if not a.get("interval"):
        return "no look yet"
    lo, hi = a["interval"]
    return f"confidence sequence [{lo * 100:+.1f}, {hi * 100:+.1f}] pp"


def _until_decided_reason(a: Mapping[str, Any]) -> str:
    minimum = _pp(a["minimum_lift"])
    where = f"{_interval(a)} at alpha {a['alpha']:g} after {_n(a['iterations'], 'iteration')} per case"
    if a["decision"] == "pass":
        return f"lift above {minimum}, {where}"
    if a["decision"] == "fail":
        return f"lift below {minimum}, {where}"
    return f"{where} still straddles {minimum}"


def _lift_reason(bench: Mapping[str, Any], holm: bool, decided: bool = False) -> str:
    lift = bench["lift"]
    mean, minimum = lift.get("pass_rate"), lift["minimum_lift"]
    if mean is None:
        return f"no case was graded in both arms, so no lift to hold against {_pp(minimum)}"
    verb = "is at least" if mean >= minimum - _EPS else "is below"
    text = f"lift {_pp(mean)} over {_n(lift['cases'], 'case')} {verb} {_pp(minimum)}"
    if holm:
        p_holm = lift.get("p_holm")
        shown = "n/a" if p_holm is None else _p(p_holm)
        sig = p_holm is not None and p_holm <= SIGNIFICANCE
        text += f" and Holm p {shown} {'<=' if sig else 'is not <='} {SIGNIFICANCE:g}"
    if decided and mean >= minimum - _EPS:
        text += (f" and significant (p={_p(lift['p_value'])})" if lift.get("significant")
                 else f" but {_not_significant(lift)}")
    return text


def reason(bench: Mapping[str, Any]) -> str:
    """Why the rule decided as it did, in a clause."""
    name = rule(bench)
    if name == "errors":
        n = sum(int(a["errors"]) for a in _arms(bench))
        return f"{_n(n, 'run')} could not run; see the errors in benchmark.md"
    if name == "required_checks":
        w = bench["variants"]["with_skill"]
        return f"{_with_failed(bench)} of {_n(int(w['graded']), 'with-skill run')} failed a required check"
    if name == "not_run":
        n = sum(int(a["not_run"]) for a in _arms(bench))
        return f"{_n(n, 'run')} not run yet: outside this --shard/--only, or not started"
    if name == "sequential":
        return _until_decided_reason(bench["adaptive"])
    if name in ("minimum_lift", "minimum_lift_holm", "minimum_lift_decided"):
        return _lift_reason(bench, name == "minimum_lift_holm", name == "minimum_lift_decided")
    return "every required with-skill check passed; no minimum_lift is set"


def _lift_aside(bench: Mapping[str, Any]) -> str:
    """Under a failed check, what the lift alone would have said (so the two are not confused)."""
    a = bench.get("adaptive")
    if isinstance(a, Mapping) and a.get("decides"):
        return f"; the lift alone: {a['decision']} by --until-decided"
    lift = bench["lift"]
    if lift.get("minimum_lift") is None or lift.get("pass_rate") is None:
        return ""
    return f"; the lift alone: {'pass' if lift.get('met') else 'fail'} by the minimum lift"


def rule_text(bench: Mapping[str, Any]) -> str:
    """``(minimum lift: lift +66.7 pp over 6 cases is at least +10.0 pp)``: the rule and why."""
    name = rule(bench)
    text = f"({RULE_NAMES.get(name, name)}: {reason(bench)}"
    if name == "required_checks":
        text += _lift_aside(bench)
    return text + ")"


def verdict_text(bench: Mapping[str, Any]) -> str:
    """``pass (minimum lift: lift +66.7 pp over 6 cases is at least +10.0 pp)``: the verdict,
    the rule that decided it and why, on one line (the same words in every report); an
    estimate-pass with its evidence: ``pass on the estimate; not significant yet (p=0.062, 6
    cases); `--until-decided` settles it (minimum lift: ...)``."""
    return f"{headline(bench)} {rule_text(bench)}"


def verdict_cell(bench: Mapping[str, Any]) -> str:
    """The verdict and its rule's name, for a table cell: ``pass (minimum lift)``,
    ``pass on the estimate (minimum lift)``."""
    name = rule(bench)
    return f"{label(bench)} ({RULE_NAMES.get(name, name)})"


def until_decided_verdict(bench: Mapping[str, Any]) -> bool:
    """The table's until-decided decision is its verdict (``run --until-decided`` ran)."""
    a = bench.get("adaptive")
    return isinstance(a, Mapping) and bool(a.get("decides"))


def p_detail(bench: Mapping[str, Any]) -> str:
    """How the fixed-sample p is named beside the figures: a detail when the until-decided
    decision is the verdict."""
    return "fixed-sample p" if until_decided_verdict(bench) else "p"


def p_aside(bench: Mapping[str, Any]) -> str:
    """Said after the fixed-sample p when the until-decided decision is the verdict."""
    return "; --until-decided decides the verdict, this p a detail" if rule(bench) == "sequential" else ""


def exit_code(benches: Sequence[Mapping[str, Any]]) -> int:
    """2 when a run errored or runs are not run yet; 1 when a verdict is fail, or undecided by
    --until-decided; 0 when every verdict is pass."""
    rules = {(b.get("verdict"), b.get("decided_by")) for b in benches}
    if any(v == "error" or r == "not_run" for v, r in rules):
        return 2
    if any(v in ("fail", "undecided") for v, _ in rules):
        return 1
    return 0


def complete(bench: Mapping[str, Any]) -> bool:
    """Every planned run has a result (the table may be recorded in the history)."""
    return bench.get("verdict") != "error" and bench.get("decided_by") != "not_run"


def stop_text(bench: Mapping[str, Any], stopped_early: bool) -> str:
    """`run --until-decided`: why one skill x model stopped where it did."""
    a = bench.get("adaptive")
    if not isinstance(a, Mapping):
        return "no decision by --until-decided"
    if a["decision"] != "undecided":
        return f"decided after {_n(a['iterations'], 'iteration')} per case ({_n(a['looks'], 'look')})"
    if stopped_early:
        return "the command stopped early (an error, the budget or the store; see above)"
    return str(a.get("reason") or "undecided")
