"""`skill-eval plan`: how many cases a suite needs to detect a lift, from the spread of the
per-case deltas its last complete benchmark stored (docs/statistics.md)."""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from skill_eval.review.comparison.benchmark import MIN_NONZERO_CASES
from skill_eval.stats.power import PRIOR_SIGMA_D, cases_needed


def read_benches(results: Path, suite: str) -> list[dict[str, Any]]:
    """Every benchmark.json of ``suite`` under its results folder, by path."""
    out = []
    for path in sorted(results.rglob("benchmark.json")):
        try:
            bench = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(bench, dict) and bench.get("suite") == suite and "lift" in bench:
            out.append(bench)
    return out


def _complete(bench: Mapping[str, Any]) -> bool:
    v = bench["variants"]
    return all(v[k]["errors"] == 0 and v[k]["graded"] == v[k]["runs"]
               for k in ("with_skill", "without_skill"))


def _cost_per_run(bench: Mapping[str, Any]) -> float | None:
    arms = [bench["variants"][k] for k in ("with_skill", "without_skill")]
    priced = sum(a.get("runs_with_cost") or 0 for a in arms)
    spent = sum(a.get("cost_usd") or 0.0 for a in arms)
    return spent / priced if priced else None


def comparison_plan(bench: Mapping[str, Any] | None, lift: float, power: float, alpha: float,
                    iterations: int, arms: int) -> dict[str, Any]:
    """One skill x model's figures; with no complete benchmark (or fewer than two deltas) the
    prior sigma_d, said so in ``sigma_source``."""
    deltas = [c["delta"] for c in (bench or {}).get("cases", []) if c.get("delta") is not None]
    prior = "prior: sqrt(1/2), a per-case delta of +1, 0 or -1 with chances 1/4, 1/2, 1/4"
    if bench is not None and _complete(bench) and len(deltas) >= 2:
        sigma, source = statistics.stdev(deltas), f"stored: {len(deltas)} per-case deltas"
        if sigma == 0:  # every case moved alike (all 0 after a regression): no spread to go on
            sigma, source = PRIOR_SIGMA_D, (f"{prior} (cannot estimate the spread: the {len(deltas)} "
                                            f"stored per-case deltas are all {deltas[0] * 100:+.1f} pp)")
    else:
        sigma, source = PRIOR_SIGMA_D, f"{prior} (no complete benchmark stored)"
    need = cases_needed(sigma, lift, power, alpha)
    runs = need * iterations * arms
    per_run = _cost_per_run(bench) if bench is not None else None
    return {
        "skill": (bench or {}).get("skill"), "model": (bench or {}).get("model"),
        "sigma_d": sigma, "sigma_source": source, "cases_needed": need,
        "cases_now": len((bench or {}).get("cases", [])), "iterations": iterations,
        "runs_needed": runs, "cost_usd_per_run": per_run,
        "cost_usd_estimate": None if per_run is None else round(runs * per_run, 6),
        # The formula is a normal approximation; the sign-flip test we report cannot reach
        # p <= 0.05 with fewer non-zero cases than this, whatever the spread.
        "note": None if need >= MIN_NONZERO_CASES else
        f"the formula asks for {need}, but the sign-flip test needs at least {MIN_NONZERO_CASES} "
        "cases that moved to reach p <= 0.05",
    }


def suite_plan(benches: Sequence[Mapping[str, Any]], lift: float, power: float, alpha: float,
               iterations: int, arms: int) -> dict[str, Any]:
    """The largest need over the comparisons at the top (it decides whether the suite is big
    enough), each comparison below."""
    rows = [comparison_plan(b, lift, power, alpha, iterations, arms) for b in benches] or \
        [comparison_plan(None, lift, power, alpha, iterations, arms)]
    top = max(rows, key=lambda r: (r["cases_needed"] - r["cases_now"], r["cases_needed"]))
    return {**{k: top[k] for k in ("sigma_d", "sigma_source", "cases_needed", "cases_now", "iterations",
                                   "runs_needed", "cost_usd_estimate", "note")},
            "lift": lift, "power": power, "alpha": alpha,
            "formula": "cases_needed = ceil(((z(1-alpha/2) + z(power)) * sigma_d / lift)^2)",
            "comparisons": rows}
