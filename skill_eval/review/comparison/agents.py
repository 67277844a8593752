"""Where the skill helps: one row per skill x agent x model of a suite with ``agents:``, the
lift with its interval, p and Holm-adjusted p (``multiplicity.adjust`` has set it across every
cell), and what it says: the skill helps, shows no clear effect, or hurts there.

A cell helps (hurts) when its lift is above (below) zero and its p after Holm's adjustment
(the plain p where only one cell has one) is at most 0.05; every other cell shows no clear effect,
including one whose paired cases are too few for the sign-flip test to decide."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# verdict's level is benchmark's (0.05); imported from there, `report --help` loads no model or stats.
from skill_eval.review.comparison.verdict import SIGNIFICANCE

EFFECT_WORDS = {"helps": "the skill helps", "none": "no clear effect", "hurts": "the skill hurts"}


def effect(lift: Mapping[str, Any]) -> str:
    """``helps``, ``hurts`` or ``none`` for one cell's lift block."""
    mean = lift.get("pass_rate")
    p = lift.get("p_holm", lift.get("p_value"))
    if mean is None or p is None or p > SIGNIFICANCE or lift.get("indeterminate"):
        return "none"
    return "helps" if mean > 0 else "hurts" if mean < 0 else "none"


def agent_rows(benches: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The per-agent lift table (empty for a suite without ``agents:``), in the benches' order."""
    rows = []
    for b in benches:
        agent = b.get("agent")
        if not isinstance(agent, Mapping):
            continue
        lift = b["lift"]
        rows.append({"skill": b["skill"], "agent": agent["name"], "model": agent["model"],
                     "lift": lift.get("pass_rate"), "ci95": lift.get("ci95"), "cases": lift.get("cases"),
                     "p_value": lift.get("p_value"), "p_holm": lift.get("p_holm"), "effect": effect(lift)})
    return rows
