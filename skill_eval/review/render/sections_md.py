"""The optional sections of benchmark.md and summary.md: ablations (what removing each part
cost) and the decisions of ``run --until-decided``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skill_eval.review.render.mdcells import _clip, _table, ci, md_text, pct, pvalue, signed

ABLATION_VERDICTS = {
    "matters": "the removed part matters",
    "removal-helps": "removing it helped",
    "no-measurable-effect": "no measurable effect",
    "indeterminate": "indeterminate (too few paired cases)",
}
_ABLATION_HEADERS = ["ablation", "removes", "with skill", "ablated", "loss", "p", "95% CI", "verdict"]


def _ablation_row(a: Mapping[str, Any]) -> list[str]:
    errors = f", {a['errors']} errored" if a["errors"] else ""
    return [md_text(a["name"]), _clip(", ".join(a["remove"]), 50), pct(a["with_skill_pass_rate"]),
            pct(a["pass_rate"]) + errors, f"{signed(a['loss'])} (n={a['cases']})", pvalue(a["p_value"]),
            ci(a["ci95"]), ABLATION_VERDICTS.get(a["verdict"], a["verdict"])]


def ablation_md(bench: Mapping[str, Any]) -> list[str]:
    """Ablations: what removing each part cost, paired per case against the full skill."""
    if not bench.get("ablations"):
        return []
    return ["", "## Ablations", "",
            "Loss: with-skill minus ablated pass rate, paired per case (positive: the part helped). "
            "Not part of the verdict.", "",
            _table([_ablation_row(a) for a in bench["ablations"]], _ABLATION_HEADERS)]


def ablation_summary_md(benches: Sequence[Mapping[str, Any]]) -> list[str]:
    rows = [[md_text(b["skill"]), md_text(b["model"]), *_ablation_row(a)]
            for b in benches for a in b.get("ablations") or []]
    if not rows:
        return []
    return ["", "## Ablations (loss when the part is removed; not in the verdict)", "",
            _table(rows, ["skill", "model", *_ABLATION_HEADERS])]


def decision_summary_md(benches: Sequence[Mapping[str, Any]]) -> list[str]:
    """summary.md's table of until-decided decisions (empty when no benchmark has one)."""
    rows = [[md_text(b["skill"]), md_text(b["model"]), a["decision"], ci(a.get("interval")),
             str(a["iterations"]), str(a["looks"]), str(a["runs"]), str(a["runs_saved"]),
             md_text(a.get("reason") or "")]
            for b in benches if (a := b.get("adaptive"))]
    if not rows:
        return []
    return ["", "## Until decided (run --until-decided)", "",
            _table(rows, ["skill", "model", "decision", "interval", "iterations", "looks", "runs",
                          "runs saved", "why undecided"])]


def agents_summary_md(benches: Sequence[Mapping[str, Any]]) -> list[str]:
    """summary.md's lift per agent (a suite with ``agents:``): where the skill helps, does nothing
    or hurts, by each cell's Holm-adjusted p."""
    from skill_eval.review.comparison.agents import EFFECT_WORDS, agent_rows

    rows = [[md_text(r["skill"]), md_text(r["agent"]), md_text(r["model"]),
             f"{signed(r['lift'])} (n={r['cases']})", ci(r["ci95"]), pvalue(r["p_value"]),
             pvalue(r["p_holm"]), EFFECT_WORDS[r["effect"]]] for r in agent_rows(benches)]
    if not rows:
        return []
    return ["", "## Lift per agent", "",
            "Each agent x model is one comparison; p (Holm) is adjusted across all of them. The skill "
            "helps (hurts) where the lift is positive (negative) with p (Holm) <= 0.05.", "",
            _table(rows, ["skill", "agent", "model", "lift", "95% CI", "p", "p (Holm)", "reading"])]
