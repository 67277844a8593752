"""The `adaptive` block of benchmark.json: the until-decided decision on one skill x model's lift
(stats/sequential.py), with the looks and runs it took and the runs it saved."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skill_eval.model.cases import Case
from skill_eval.model.until_decided import UntilDecidedSettings
from skill_eval.review.comparison.benchmark import ARMS, RunRecord
from skill_eval.stats.sequential import decide

METHOD = ("predictable-plug-in empirical-Bernstein confidence sequence (Waudby-Smith & Ramdas 2024), "
          "per-round bets, per-case centres")


def paired_rounds(cases: Sequence[Case], runs: Sequence[RunRecord]) -> tuple[list[list[float]], int | None]:
    """Round r: pass(with) - pass(without) at iteration r for every case in order, for as many
    rounds as every case has both arms graded; and the first iteration where one has not (None
    when every planned run is graded)."""
    outcome: dict[tuple[str, str, int], RunRecord] = {(r.case_id, r.arm, r.iteration): r for r in runs}
    top = max((r.iteration for r in runs), default=0)
    rows: list[list[float]] = []
    for it in range(1, top + 1):
        recs = [[outcome.get((c.id, v, it)) for v in ARMS] for c in cases]
        if not all(r is not None and r.graded for pair in recs for r in pair):
            return rows, it
        rows.append([float(w.passed) - float(wo.passed) for w, wo in recs])  # type: ignore[union-attr]
    return rows, None


def until_decided_block(cases: Sequence[Case], runs: Sequence[RunRecord], minimum_lift: float | None,
                   settings: UntilDecidedSettings, start: int, decides: bool = False) -> dict[str, Any]:
    """``decides``: `run --until-decided` ran, so this decision is the table's verdict."""
    paired = [r for r in runs if r.arm in ARMS]
    rows, gap = paired_rounds(cases, paired) if cases else ([], None)
    minimum = 0.0 if minimum_lift is None else float(minimum_lift)
    d = decide(rows, minimum, settings.alpha, first_look=start)
    last = d.looks[-1] if d.looks else None
    full = len(ARMS) * len(cases) * settings.max_iterations
    if d.decision != "undecided":
        reason = None
    elif gap is not None:
        reason = f"runs of iteration {gap} are missing or errored; run again to complete them"
    elif len(rows) >= settings.max_iterations:
        reason = f"max_iterations ({settings.max_iterations}) reached"
    else:
        reason = (f"{len(rows)} of at most {settings.max_iterations} iterations run; "
                  "'run --until-decided' adds more")
    return {
        "decision": d.decision, "reason": reason, "looks": len(d.looks), "iterations": d.rounds,
        "runs": len(paired), "runs_saved": max(0, full - len(paired)),
        "max_iterations": settings.max_iterations, "alpha": settings.alpha, "minimum_lift": minimum,
        "interval": None if last is None else [last.lower, last.upper], "method": METHOD,
        "decides": decides,
    }
