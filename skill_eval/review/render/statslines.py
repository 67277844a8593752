"""The statistics shown beside the headline figures: each arm's interval, the Holm-adjusted p,
and the until-decided decision (docs/statistics.md). One place, for Markdown, console and page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skill_eval.review.comparison.verdict import RULE_NAMES

ARMS = (("with_skill", "with"), ("without_skill", "without"))


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _unit_ci(bounds: Sequence[float] | None) -> str:
    return "n/a" if not bounds else f"[{bounds[0] * 100:.1f}%, {bounds[1] * 100:.1f}%]"


def _pp(bounds: Sequence[float]) -> str:
    return f"[{bounds[0] * 100:+.1f}, {bounds[1] * 100:+.1f}] pp"


def _n(n: int, word: str) -> str:
    return f"{n:,} {word if n == 1 else word + 's'}"


def interval_line(bench: Mapping[str, Any]) -> str | None:
    """Per-arm Wilson intervals (clustered by case) and the lift's clustered standard error."""
    v, lift = bench["variants"], bench["lift"]
    if not any(v[k].get("ci95") for k, _ in ARMS):
        return None
    parts = [f"{label} {_unit_ci(v[k].get('ci95'))}" for k, label in ARMS]
    text = "95% intervals (Wilson, clustered by case): " + ", ".join(parts)
    se = lift.get("se_clustered")
    if se is not None:
        text += f"; lift SE {se * 100:.1f} pp (clustered by case)"
    if lift.get("p_holm") is not None:
        text += f"; p_holm {_p(lift['p_holm'])} (Holm over every skill x model)"
    return text + "."


def decision_line(bench: Mapping[str, Any], brief: bool = False) -> str | None:
    """The until-decided decision in plain words (None when the suite does not ask for one), and
    whether it is the verdict (it is, unless an error, a failed check or runs not run decided).
    ``brief``: only what the verdict line does not say, where it is the verdict."""
    a = bench.get("adaptive")
    if not a:
        return None
    if brief and bench.get("decided_by") == "sequential":
        text = (f"Until decided: {_n(a['looks'], 'look')}, {_n(a['runs'], 'run')}; "
                f"{_n(a['runs_saved'], 'run')} saved against {a['max_iterations']} iterations everywhere")
        return text + (f"; {a['reason']}." if a.get("reason") else ".")
    where = f"confidence sequence {_pp(a['interval'])}" if a.get("interval") else "no look yet"
    minimum = f"{a['minimum_lift'] * 100:+.1f} pp"
    # About these cases (their true rates), not cases in general: that is the p-value's question.
    head = {"pass": f"pass: the lift on these cases is above {minimum}",
            "fail": f"fail: the lift on these cases is below {minimum}",
            "undecided": f"undecided against {minimum}"}[a["decision"]]
    rule = bench.get("decided_by")
    role = ("" if rule in (None, "sequential") else
            f" [not the verdict: {RULE_NAMES.get(str(rule), rule)} decided it]")
    text = (f"Until decided{role}: {head} ({where}, alpha {a['alpha']:g}) after "
            f"{_n(a['iterations'], 'iteration')} per case, {_n(a['looks'], 'look')}, "
            f"{_n(a['runs'], 'run')}; {_n(a['runs_saved'], 'run')} saved against "
            f"{a['max_iterations']} iterations everywhere")
    if a.get("reason"):
        text += f"; {a['reason']}"
    return text + "."


def holm_note(lift: Mapping[str, Any]) -> str:
    """" (Holm 0.031)" beside a p-value when the suite has an adjusted one, else ""."""
    p_holm = lift.get("p_holm")
    return "" if p_holm is None else f" (Holm {_p(p_holm)})"
