"""benchmark.md's and summary.md's section for ``claude plugin eval`` suites: the first-party
numbers (review/comparison/plugin_scores.py) beside skill-eval's lift, interval and significance."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skill_eval.review.render.mdcells import _table, ci, md_text, pct, pvalue, signed


def points(value: float | None) -> str:
    """Δ as plugin eval's report shows it: score points (×100), signed, one decimal."""
    return "n/a" if value is None else f"{value * 100:+.1f} pts"


def _scores(runs: Sequence[Mapping[str, Any]]) -> str:
    return " ".join(f"{r['score']:.2f}{'' if r['error'] is None else '!'}" for r in runs) or "–"


def suite_line(block: Mapping[str, Any]) -> str:
    """plugin eval's verdict line and tiles, in one sentence."""
    threshold = block["threshold"]
    return (f"claude plugin eval's numbers: suite score {pct(block['overall_score'])}, mean Δ "
            f"{points(block['mean_delta'])} (improved {block['improved']} · flat {block['flat']} · "
            f"regressed {block['regressed']} of {block['improved'] + block['flat'] + block['regressed']} "
            f"cases), baseline score {pct(block['baseline_score'])}, "
            f"{block['cases_passed']} of {block['cases_total']} cases ≥ {pct(threshold)} threshold, "
            f"perfect runs {pct(block['perfect_runs'])}.")


def plugin_eval_md(bench: Mapping[str, Any]) -> list[str]:
    """benchmark.md's section: per case the run scores (weighted), the case score, Δ and pass at
    the threshold, then the suite's numbers beside skill-eval's lift."""
    block = bench.get("plugin_eval")
    if not block:
        return []
    lift = bench["lift"]
    rows = [[md_text(c["id"]), _scores(c["runs"]["with"]), _scores(c["runs"]["without"]),
             pct(c["score"]), pct(c.get("score_without")), points(c.get("delta")),
             "pass" if c["passed"] else "fail"] for c in block["cases"]]
    return ["", "## claude plugin eval's scores", "",
            "Run scores are the weighted share of scored graders that passed (plugin-fired indicators "
            "are graded in the with-arm and not scored in a two-arm case; `!` marks a run that ended "
            "in an error). Beside skill-eval's lift "
            f"{signed(lift['pass_rate'])} (p {pvalue(lift['p_value'])}, 95% CI {ci(lift['ci95'])}).", "",
            _table(rows, ["case", "with runs", "without runs", "score", "without", "Δ",
                          f"≥ {pct(block['threshold'])}"]),
            "", suite_line(block)]


def plugin_eval_summary_md(benches: Sequence[Mapping[str, Any]]) -> list[str]:
    """summary.md's table: one row per plugin eval skill × model."""
    rows = [[md_text(b["skill"]), md_text(b["model"]), pct(p["overall_score"]), pct(p["baseline_score"]),
             points(p["mean_delta"]), f"{p['cases_passed']}/{p['cases_total']} ≥ {pct(p['threshold'])}",
             pct(p["perfect_runs"]), signed(b["lift"]["pass_rate"]), ci(b["lift"]["ci95"]),
             pvalue(b["lift"]["p_value"])]
            for b in benches if (p := b.get("plugin_eval"))]
    if not rows:
        return []
    return ["", "## claude plugin eval's numbers beside skill-eval's", "",
            _table(rows, ["skill", "model", "suite score", "baseline", "mean Δ", "cases passing",
                          "perfect runs", "lift", "95% CI", "p"])]


def plugin_eval_figures(bench: Mapping[str, Any]) -> dict[str, Any] | None:
    """The review page's section: the same rows as benchmark.md's, as plain cells."""
    block = bench.get("plugin_eval")
    if not block:
        return None
    return {"line": suite_line(block), "threshold": pct(block["threshold"]),
            "rows": [{"id": str(c["id"]), "with": _scores(c["runs"]["with"]),
                      "without": _scores(c["runs"]["without"]), "score": pct(c["score"]),
                      "score_without": pct(c.get("score_without")), "delta": points(c.get("delta")),
                      "neg": (c.get("delta") or 0) < 0, "passed": bool(c["passed"])}
                     for c in block["cases"]]}
